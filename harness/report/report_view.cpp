#include "harness/report/report_view.hpp"

#include <algorithm>

#include "harness/core/errors.hpp"
#include "harness/report/report_text.hpp"
#include "harness/core/verdicts.hpp"

namespace kgate {
namespace {

std::optional<double> opt_num(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// The recorded raw verdicts of the gate set that judges `baseline`'s pair.
const json& gate_set_raw(const RowRecord& row, const Policy& policy, const std::string& baseline) {
  static const json empty = json::object();
  const json& raw = row.verdicts.raw;
  if (policy.by_baseline.count(baseline)) {
    if (raw.contains("by_baseline") && raw["by_baseline"].contains(baseline)) return raw["by_baseline"][baseline];
    return empty;
  }
  return raw;
}
std::optional<bool> opt_bool(const json& j, const char* k) {
  return j.contains(k) && j[k].is_boolean() ? std::optional<bool>(j[k].get<bool>()) : std::nullopt;
}

PairFigures figures_of(const RowRecord& row, const PairRecord& p, const ReportView& v) {
  PairFigures f;
  const json& raw = gate_set_raw(row, v.policy, p.baseline);
  f.strict = opt_bool(raw, "strict");
  f.strict_median = opt_bool(raw, "strict_median");
  f.limit_value = opt_num(raw, "limit_value");
  if (v.is_floor(p.baseline) && p.ratio) f.pct_of_floor = *p.ratio * 100;
  if (!p.candidate_stats || !(p.candidate_stats->median_us > 0) || !row.work) return f;
  const double seconds = p.candidate_stats->median_us * 1e-6;
  if (row.work->bytes > 0) {
    f.candidate_tb_per_s = row.work->bytes / seconds / 1e12;
    if (v.peaks && v.peaks->copy_bytes_per_s && *v.peaks->copy_bytes_per_s > 0)
      f.pct_copy_peak = row.work->bytes / seconds / *v.peaks->copy_bytes_per_s * 100;
  }
  if (row.work->flops > 0) {
    f.candidate_tflop_per_s = row.work->flops / seconds / 1e12;
    if (v.peaks && v.peaks->gemm_bf16_flops_per_s && *v.peaks->gemm_bf16_flops_per_s > 0)
      f.pct_gemm_peak = row.work->flops / seconds / *v.peaks->gemm_bf16_flops_per_s * 100;
  }
  return f;
}

std::string gates_text(const GateSet& g) {
  std::string s;
  for (const auto& name : g.gates) {
    s += (s.empty() ? "" : ", ") + name;
    const GateDef* d = find_gate(name);
    if (!d || !d->value || !(g.*d->value)) continue;
    s += "(" + report_text::shortest(*(g.*d->value));
    if (d->value == &GateSet::limit)
      for (const auto& [tag, L] : g.limit_by_tag) s += ", " + tag + ": " + report_text::shortest(L);
    s += ")";
  }
  return s.empty() ? "(none)" : s;
}

}  // namespace

bool ReportView::has_work() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const RowView& r) { return r.record.work && r.record.work->bytes > 0; });
}
bool ReportView::has_flops() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const RowView& r) { return r.record.work && r.record.work->flops > 0; });
}
bool ReportView::has_copy_peak() const { return peaks && peaks->copy_bytes_per_s && has_work(); }
bool ReportView::has_gemm_peak() const { return peaks && peaks->gemm_bf16_flops_per_s && has_flops(); }
bool ReportView::has_floor() const {
  return std::any_of(baselines.begin(), baselines.end(), [&](const std::string& b) { return is_floor(b); });
}

std::string policy_text(const Policy& p) {
  std::string s = gates_text(p);
  for (const auto& [name, g] : p.by_baseline) s += "; vs " + name + ": " + gates_text(g);
  if (!p.accept_refusals.empty()) s += "; refusals accepted: " + join(p.accept_refusals, ", ");
  return s;
}

AcceptanceView acceptance_view(const json& statement, const std::string& name) {
  AcceptanceView a;
  try {
    const json& pred = statement.at("body").at("predicate");
    a.statement = name;
    a.reason = pred.at("reason").get<std::string>();
    a.policy = policy_text(Policy::from_json(pred.at("policy"), "acceptance policy"));
    a.recorded_passed = pred.at("summary").at("recorded_passed").get<int64_t>();
    a.accepted_passed = pred.at("summary").at("accepted_passed").get<int64_t>();
    for (const auto& r : pred.at("rows"))
      a.rows.push_back({r.at("id").get<std::string>(), r.at("recorded").at("passed").get<bool>(),
                        r.at("accepted").at("passed").get<bool>(),
                        r.at("accepted").at("failed").get<std::vector<std::string>>()});
  } catch (const std::exception& e) {
    throw AuditError(name + ": not an acceptance kgate writes: " + e.what());
  }
  return a;
}

ReportView report_view(const json& receipt, const std::string& source) {
  ReportView v;
  static_cast<ReceiptView&>(v) = receipt_view(receipt, source);
  for (RowRecord& r : receipt_rows(receipt)) {
    RowView rv;
    rv.record = std::move(r);
    for (const auto& p : rv.record.pairs) rv.figures.push_back(figures_of(rv.record, p, v));
    rv.failures = failed_gates(rv.record, v.policy, v.interval.level);
    v.rows.push_back(std::move(rv));
  }
  return v;
}

}  // namespace kgate
