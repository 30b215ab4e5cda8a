// The json, csv and wide printers (markdown: report_md.cpp; html: report_html.cpp).
#include "harness/report/report.hpp"

#include <set>
#include <sstream>

#include "harness/core/verdicts.hpp"
#include "harness/report/gate_text.hpp"
#include "harness/report/report_text.hpp"

namespace kgate {
namespace {

namespace rt = report_text;

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json opt_json(const std::optional<bool>& v) { return v ? json(*v) : json(nullptr); }

json figures_json(const PairRecord& p, const PairFigures& f) {
  return {{"baseline", p.baseline},
          {"candidate_tb_per_s", opt_json(f.candidate_tb_per_s)},
          {"candidate_tflop_per_s", opt_json(f.candidate_tflop_per_s)},
          {"pct_copy_peak", opt_json(f.pct_copy_peak)},
          {"pct_gemm_peak", opt_json(f.pct_gemm_peak)},
          {"pct_of_floor", opt_json(f.pct_of_floor)},
          {"strict", opt_json(f.strict)},
          {"strict_median", opt_json(f.strict_median)},
          {"limit_value", opt_json(f.limit_value)}};
}

std::string param_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return rt::shortest(v.get<double>());
  return v.dump();
}

}  // namespace

std::string report_json(const ReportView& v) {
  json j;
  j["schema"] = "kgate.report/1";
  j["derived_from"] = {{"receipt", v.source}, {"body_sha256", v.body_sha256}};
  j["ratio"] = kRatioDirection;
  j["interval"] = {{"method", v.interval.method}, {"level", v.interval.level}, {"resamples", v.interval.resamples}};
  j["tool"] = {{"version", v.tool_version}, {"git_commit", v.git_commit}, {"binary_sha256", v.binary_sha256}};
  j["backend"] = v.backend;
  j["timer"] = v.timer;
  j["device"] = v.device;
  j["peaks"] = v.peaks ? json{{"copy_bytes_per_s", opt_json(v.peaks->copy_bytes_per_s)},
                              {"gemm_bf16_flops_per_s", opt_json(v.peaks->gemm_bf16_flops_per_s)},
                              {"copy_method", v.peaks->copy_method},
                              {"gemm_method", v.peaks->gemm_method}}
                       : json(nullptr);
  j["protocol"] = {{"groups", v.groups}, {"blocks", v.blocks}, {"m", v.m}};
  j["cases"] = {{"path", v.cases_path}, {"sha256", v.cases_sha256}, {"table", v.table}, {"family", v.family}};
  if (v.acceptance) {
    json rows = json::array();
    for (const auto& r : v.acceptance->rows)
      rows.push_back({{"id", r.id}, {"recorded", r.recorded}, {"accepted", r.accepted}, {"failed", r.accepted_failed}});
    j["acceptance"] = {{"statement", v.acceptance->statement},
                       {"reason", v.acceptance->reason},
                       {"policy", v.acceptance->policy},
                       {"recorded_passed", v.acceptance->recorded_passed},
                       {"accepted_passed", v.acceptance->accepted_passed},
                       {"rows", rows}};
  }
  j["candidate"] = v.candidate;
  j["baselines"] = v.baselines;
  j["arms"] = json::array();
  for (const auto& a : v.arms) {
    json src = json::array();
    for (const auto& [path, sha] : a.sources) src.push_back({{"path", path}, {"sha256", sha}});
    j["arms"].push_back({{"name", a.name},
                         {"role", a.role},
                         {"registered_role", a.registered_role},
                         {"backend", a.backend},
                         {"kernel_names", a.kernel_names},
                         {"sources", src}});
  }
  j["policy"] = v.policy.to_json();
  j["policy_text"] = policy_text(v.policy);
  j["finished_utc"] = v.finished_utc;
  j["summary"] = to_json(v.summary);
  j["rows"] = json::array();
  for (const auto& rv : v.rows) {
    json r = to_json(rv.record);
    r["figures"] = json::array();
    for (size_t i = 0; i < rv.record.pairs.size(); ++i)
      r["figures"].push_back(figures_json(rv.record.pairs[i], rv.figures[i]));
    r["failures"] = json::array();
    for (const auto& f : rv.failures) r["failures"].push_back(gate_json(f));
    j["rows"].push_back(std::move(r));
  }
  return j.dump(2) + "\n";
}

std::string report_csv(const ReportView& v) {
  std::set<std::string> params;
  for (const auto& rv : v.rows)
    for (auto it = rv.record.params.begin(); it != rv.record.params.end(); ++it) params.insert(it.key());
  std::ostringstream o;
  o << "row,family,tags,disposition,error,baseline,baseline_registered_role,candidate,baseline_median_us,"
       "candidate_median_us,baseline_iqr_us,candidate_iqr_us,ratio_baseline_over_candidate,ratio_ci_lo,ratio_ci_hi,"
       "drift,strict,strict_median,"
       "limit_value,work_bytes,work_flops,candidate_tb_per_s,candidate_tflop_per_s,pct_copy_peak,pct_gemm_peak,"
       "pct_of_floor,policy_verdict,failed_gates";
  for (const auto& p : params) o << "," << rt::csv("param." + p);
  o << "\n";
  auto num = [](const std::optional<double>& x) { return x ? rt::shortest(*x) : std::string(); };
  auto flag = [](const std::optional<bool>& x) { return x ? std::string(*x ? "true" : "false") : std::string(); };
  for (const auto& rv : v.rows) {
    const RowRecord& r = rv.record;
    std::string tags, failed;
    for (const auto& [k, val] : r.tags) tags += (tags.empty() ? "" : " ") + k + "=" + val;
    for (const auto& g : r.verdicts.failed) failed += (failed.empty() ? "" : ";") + g;
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      const PairRecord& p = r.pairs[i];
      const PairFigures& f = rv.figures[i];
      const ArmInfo* a = v.arm(p.baseline);
      auto stat = [&](const std::optional<SampleStats>& s, double SampleStats::*m) {
        return s ? rt::shortest((*s).*m) : std::string();
      };
      o << rt::csv(r.id) << "," << rt::csv(r.family) << "," << rt::csv(tags) << "," << to_string(r.disposition) << ","
        << rt::csv(r.error.value_or("")) << "," << rt::csv(p.baseline) << "," << rt::csv(a ? a->registered_role : "")
        << "," << rt::csv(p.candidate) << "," << stat(p.baseline_stats, &SampleStats::median_us) << ","
        << stat(p.candidate_stats, &SampleStats::median_us) << "," << stat(p.baseline_stats, &SampleStats::iqr_us)
        << "," << stat(p.candidate_stats, &SampleStats::iqr_us) << "," << num(p.ratio) << ","
        << num(p.ratio_ci ? std::optional<double>(p.ratio_ci->lo) : std::nullopt) << ","
        << num(p.ratio_ci ? std::optional<double>(p.ratio_ci->hi) : std::nullopt) << "," << num(p.drift) << ","
        << flag(f.strict) << "," << flag(f.strict_median) << "," << num(f.limit_value) << ","
        << num(r.work ? std::optional<double>(r.work->bytes) : std::nullopt) << ","
        << num(r.work ? std::optional<double>(r.work->flops) : std::nullopt) << "," << num(f.candidate_tb_per_s) << ","
        << num(f.candidate_tflop_per_s) << "," << num(f.pct_copy_peak) << "," << num(f.pct_gemm_peak) << ","
        << num(f.pct_of_floor) << "," << (r.verdicts.policy ? "pass" : "fail") << "," << rt::csv(failed);
      for (const auto& name : params) o << "," << (r.params.contains(name) ? rt::csv(param_text(r.params[name])) : "");
      o << "\n";
    }
  }
  return o.str();
}

std::string report_wide(const std::vector<RowRecord>& rows, const std::string& anchor_arg) {
  const WideTable t = wide_table(rows, anchor_arg);
  if (t.arms.size() < 2) return "no row has measured pairs\n";
  auto g4 = [](double x) { return rt::printf_num("%.4g", x); };
  auto f3 = [](double x) { return rt::printf_num("%.3f", x); };
  std::ostringstream o;
  o << "median us per arm (" << rt::md(t.arms[0]) << ": from its pairing with " << rt::md(t.arms[1])
    << "), then time / " << rt::md(t.anchor)
    << " (< 1: faster than the anchor; the inverse of kgate's ratio)\n\n| row |";
  for (const auto& a : t.arms) o << " " << rt::md(a) << " |";
  for (const auto& a : t.arms) o << " " << rt::md(a) << " / anchor |";
  o << "\n|---|";
  for (size_t i = 0; i < 2 * t.arms.size(); ++i) o << "---:|";
  o << "\n";
  for (const auto& w : t.rows) {
    o << "| " << rt::md(w.id);
    if (w.disposition != Disposition::passed) o << " (" << to_string(w.disposition) << ")";
    o << " |";
    for (const auto& a : t.arms) {
      auto it = w.median_us.find(a);
      o << " " << (it != w.median_us.end() ? g4(it->second) : std::string("-")) << " |";
    }
    for (size_t i = 0; i < t.arms.size(); ++i)
      o << " " << (w.over_anchor.empty() ? std::string("-") : f3(w.over_anchor[i])) << " |";
    o << "\n";
  }
  if (t.complete_rows) {
    o << "| geomean over " << t.complete_rows << " rows |";
    for (size_t i = 0; i < t.arms.size(); ++i) o << " |";
    for (double g : t.geomean_over_anchor) o << " " << f3(g) << " |";
    o << "\n";
  }
  return o.str();
}

}  // namespace kgate
