#include "harness/core/report_view.hpp"

#include <algorithm>

#include "harness/core/errors.hpp"
#include "harness/core/report_text.hpp"
#include "harness/core/verdicts.hpp"

namespace kgate {
namespace {

using report_text::sig4;

// Checked lookups into the predicate's header: a receipt of another shape is an AuditError
// naming the field, never a json exception.
const json& field(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw AuditError("report: field " + quoted(where + key) + ": missing");
  return j[key];
}
std::string str_field(const json& j, const std::string& key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_string()) throw AuditError("report: field " + quoted(where + key) + ": not a string");
  return v.get<std::string>();
}
int64_t int_field(const json& j, const std::string& key, const std::string& where) {
  const json& v = field(j, key, where);
  if (!v.is_number_integer()) throw AuditError("report: field " + quoted(where + key) + ": not an integer");
  return v.get<int64_t>();
}
std::string opt_str(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}
std::optional<double> opt_num(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string device_of(const json& env) {
  if (env.contains("gpus") && env["gpus"].is_array() && !env["gpus"].empty()) {
    const json& g = env["gpus"][0];
    std::string d = opt_str(g, "name");
    if (d.empty()) d = "GPU";
    if (!opt_str(g, "compute_capability").empty()) d += " (sm " + opt_str(g, "compute_capability") + ")";
    if (env["gpus"].size() > 1) d += " x " + std::to_string(env["gpus"].size());
    return d;
  }
  std::string d = "CPU " + (opt_str(env, "cpu").empty() ? std::string("?") : opt_str(env, "cpu"));
  if (env.contains("logical_cpus") && env["logical_cpus"].is_number_integer())
    d += " (" + std::to_string(env["logical_cpus"].get<int64_t>()) + " logical CPUs)";
  return d;
}

std::optional<Peaks> peaks_of(const json& env) {
  if (!env.contains("peaks") || !env["peaks"].is_object()) return std::nullopt;
  const json& p = env["peaks"];
  return Peaks{opt_num(p, "copy_bytes_per_s"), opt_num(p, "gemm_bf16_flops_per_s"), opt_str(p, "copy_method"),
               opt_str(p, "gemm_method")};
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

std::string correctness_text(const RowRecord& row) {
  std::string s;
  for (const auto& c : row.correctness) {
    if (c.result.passed) continue;
    const Correctness& r = c.result;
    if (!s.empty()) s += "; ";
    s += c.arm + ": " + std::to_string(r.mismatches) + " of " + std::to_string(r.elements) +
         " elements out of tolerance";
    if (r.nonfinite) s += ", " + std::to_string(r.nonfinite) + " non-finite";
    if (r.unwritten) s += ", " + std::to_string(r.unwritten) + " never written";
    if (!r.worst.empty())
      s += "; worst " + r.worst + ": out " + report_text::shortest(r.worst_out) + ", ref " +
           report_text::shortest(r.worst_ref);
    s += "; max abs err " + report_text::shortest(r.max_abs_err) + ", max rel err " +
         report_text::shortest(r.max_rel_err) + " (tolerance atol " + report_text::shortest(row.tolerance.atol) +
         ", rtol " + report_text::shortest(row.tolerance.rtol) + ")";
    if (!r.note.empty()) s += "; " + r.note;
  }
  return s.empty() ? "no arm's check failed (the row did not reach its check)" : s;
}

// What one pair shows for one failed pair gate.
std::string pair_gate_text(const std::string& gate, const RowRecord& row, const PairRecord& p, const PairFigures& f,
                           const GateSet& gates) {
  const std::string who = "vs " + p.baseline + ": ";
  if (auto it = row.refused.find(p.baseline); it != row.refused.end())
    return who + "refused the row (" + it->second + "), a refusal this policy does not accept";
  if (!p.ratio) return who + "not measured";
  if (gate == "strict" && !p.ratio_ci) return who + "no interval recorded";
  if (gate == "strict")
    return who + "interval " + report_text::interval3(p.ratio_ci->lo, p.ratio_ci->hi) + ": lower bound " +
           (p.ratio_ci->lo > 1 ? "> 1" : "<= 1, not resolved faster");
  if (gate == "strict_median")
    return who + "median ratio " + report_text::ratio3(*p.ratio) + (*p.ratio > 1 ? " > 1" : " <= 1");
  if (gate == "limit") {
    if (!f.limit_value) return who + "no limit value recorded";
    const double L = *f.limit_value, bound = (1 + L) * p.baseline_stats->median_us;
    std::string s = who + "limit " + report_text::shortest(L) + " (this row's";
    if (gates.limit && *gates.limit != L) s += "; policy default " + report_text::shortest(*gates.limit);
    return s + "): candidate " + sig4(p.candidate_stats->median_us) + " us " +
           (p.candidate_stats->median_us <= bound ? "<= " : "> ") + "(1 + " + report_text::shortest(L) +
           ") x baseline " + sig4(p.baseline_stats->median_us) + " us = " + sig4(bound) + " us";
  }
  if (gate == "drift") {
    std::string s = who + "drift " + report_text::ratio3(*p.drift);
    if (gates.drift) s += " (limit " + report_text::shortest(*gates.drift) + ")";
    return s + ", groups agree: " + report_text::yes_no(p.groups_agree);
  }
  if (gate == "parity" || gate == "fallback") {
    if (!row.signatures) return who + "no activity signatures (needs the cupti timer)";
    auto sig = [&](const std::string& arm) {
      auto it = row.signatures->find(arm);
      if (it == row.signatures->end()) return arm + " A/L/K -";
      const SignatureRecord& s = it->second;
      std::string t = arm + " A/L/K " + std::to_string(s.A) + "/" + std::to_string(s.L) + "/" + std::to_string(s.K);
      if (!s.consistent) t += " (inconsistent across calls)";
      if (gate == "fallback" && !s.undeclared.empty()) {
        t += ", undeclared kernels:";
        for (const auto& n : s.undeclared) t += " " + n;
      }
      return t;
    };
    return who + (gate == "parity" ? sig(p.baseline) + " vs " : "") + sig(p.candidate);
  }
  return who + "failed";
}

std::vector<Failure> failures_of(const RowView& rv, const Policy& policy) {
  const RowRecord& row = rv.record;
  std::vector<Failure> out;
  const bool correct_listed =
      std::find(row.verdicts.failed.begin(), row.verdicts.failed.end(), "correct") != row.verdicts.failed.end();
  for (const auto& entry : row.verdicts.failed) {
    Failure f;
    const auto at = entry.find('@');
    f.gate = entry.substr(0, at);
    if (at != std::string::npos) f.baseline = entry.substr(at + 1);
    if (f.gate == "disposition") {
      f.reason = to_string(row.disposition) + (row.error ? ": " + *row.error : std::string(": no error recorded"));
      if (row.disposition == Disposition::incorrect && !correct_listed) f.reason += "; " + correctness_text(row);
    } else if (f.gate == "correct") {
      f.reason = correctness_text(row);
    } else {
      const GateSet& gates = policy.gates_for(f.baseline);
      for (size_t i = 0; i < row.pairs.size(); ++i) {
        const PairRecord& p = row.pairs[i];
        if (!policy.judges(f.baseline, p.baseline)) continue;
        f.reason += (f.reason.empty() ? "" : "; ") + pair_gate_text(f.gate, row, p, rv.figures[i], gates);
      }
      if (f.reason.empty()) f.reason = "no pair of this row is judged by it";
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string gates_text(const GateSet& g) {
  std::string s;
  for (const auto& name : g.gates) {
    s += (s.empty() ? "" : ", ") + name;
    if (name == "limit" && g.limit) {
      s += "(" + report_text::shortest(*g.limit);
      for (const auto& [tag, L] : g.limit_by_tag) s += ", " + tag + ": " + report_text::shortest(L);
      s += ")";
    }
    if (name == "drift" && g.drift) s += "(" + report_text::shortest(*g.drift) + ")";
  }
  return s.empty() ? "(none)" : s;
}

}  // namespace

const ArmInfo* ReportView::arm(const std::string& name) const {
  for (const auto& a : arms)
    if (a.name == name) return &a;
  return nullptr;
}
bool ReportView::is_floor(const std::string& name) const {
  const ArmInfo* a = arm(name);
  return a && a->registered_role == "floor";
}
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

ReportView report_view(const json& receipt, const std::string& source) {
  ReportView v;
  v.source = source;
  const json& pred = field(field(receipt, "body", ""), "predicate", "body.");
  v.body_sha256 = str_field(field(receipt, "seal", ""), "body_sha256", "seal.");
  const json& tool = field(pred, "tool", "");
  v.tool_version = str_field(tool, "version", "tool.");
  v.git_commit = str_field(tool, "git_commit", "tool.");
  v.binary_sha256 = str_field(tool, "binary_sha256", "tool.");
  v.backend = str_field(pred, "backend", "");
  v.timer = str_field(pred, "timer", "");
  v.environment = field(pred, "environment", "");
  v.device = device_of(v.environment);
  v.peaks = peaks_of(v.environment);
  v.protocol = field(pred, "protocol", "");
  v.groups = int_field(v.protocol, "groups", "protocol.");
  v.blocks = int_field(v.protocol, "blocks", "protocol.");
  v.m = int_field(v.protocol, "m", "protocol.");
  v.seed = int_field(v.protocol, "seed", "protocol.");
  v.interval = interval_spec_from_json(v.protocol);
  const json& cases = field(pred, "cases", "");
  v.cases_path = str_field(cases, "path", "cases.");
  v.cases_sha256 = str_field(cases, "sha256", "cases.");
  v.table = str_field(cases, "table", "cases.");
  v.family = str_field(cases, "family", "cases.");
  const json& arms = field(pred, "arms", "");
  if (!arms.is_array()) throw AuditError("report: field 'arms': not an array");
  for (const auto& a : arms) {
    ArmInfo info{str_field(a, "name", "arms[]."),
                 str_field(a, "role", "arms[]."),
                 opt_str(a, "registered_role"),
                 opt_str(a, "backend"),
                 {},
                 {}};
    if (a.contains("kernel_names") && a["kernel_names"].is_array())
      for (const auto& k : a["kernel_names"])
        if (k.is_string()) info.kernel_names.push_back(k.get<std::string>());
    if (a.contains("sources") && a["sources"].is_array())
      for (const auto& s : a["sources"]) info.sources.emplace_back(opt_str(s, "path"), opt_str(s, "sha256"));
    if (info.role == "candidate")
      v.candidate = info.name;
    else
      v.baselines.push_back(info.name);
    v.arms.push_back(std::move(info));
  }
  try {
    v.policy = Policy::from_json(field(pred, "policy", ""), "receipt policy");
  } catch (const InputError& e) {
    throw AuditError(std::string("report: ") + e.what());
  }
  v.finished_utc = opt_str(field(pred, "run", ""), "finished_utc");
  const json& rows = field(pred, "rows", "");
  if (!rows.is_array()) throw AuditError("report: field 'rows': not an array");
  for (const auto& r : rows) {
    RowView rv;
    rv.record = row_record_from_json(r);
    for (const auto& p : rv.record.pairs) rv.figures.push_back(figures_of(rv.record, p, v));
    rv.failures = failures_of(rv, v.policy);
    v.rows.push_back(std::move(rv));
  }
  v.summary = summary_from_json(field(pred, "summary", ""));
  return v;
}

}  // namespace kgate
