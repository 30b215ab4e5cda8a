#include "harness/core/gates.hpp"

#include <cmath>
#include <filesystem>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

// A tri-state verdict: true, false, or null (not applicable / not measurable here).
static json tri(std::optional<bool> b) { return b ? json(*b) : json(nullptr); }

// Pair gates over some of a row's pairs (all of them when the policy names no baselines):
// strict, limit (with the row's effective limit), drift, parity, fallback; null where not
// applicable or not measurable.
static json pair_gates(const json& row, const std::vector<const json*>& pairs, const GateSet& policy, bool measured) {
  // Effective limit for this row: the tag override if any, else the policy's.
  std::optional<double> L = policy.limit;
  for (const auto& [kv, v] : policy.limit_by_tag) {
    auto eq = kv.find('=');
    std::string k = kv.substr(0, eq), val = kv.substr(eq + 1);
    if (row["tags"].contains(k) && row["tags"][k] == val) L = v;
  }
  json raw;
  std::optional<bool> strict, limit, drift;
  if (measured && !pairs.empty()) {
    strict = limit = drift = true;
    for (const json* pp : pairs) {
      const json& p = *pp;
      double r = p["ratio"].get<double>();
      *strict = *strict && r > 1;
      if (L) *limit = *limit && p["candidate_stats"]["median_us"].get<double>() <=
                                   (1 + *L) * p["baseline_stats"]["median_us"].get<double>();
      // Direction agreement matters only once the pooled ratio is resolved beyond the drift
      // band: for a tie within +-D (an A/A pair) the groups' sides of 1 are noise.
      if (policy.drift) {
        double D = *policy.drift;
        bool resolved = std::fabs(r - 1) > D;
        *drift = *drift && p["drift"].get<double>() <= D && (!resolved || p["groups_agree"].get<bool>());
      }
    }
    if (!L) limit.reset();
    if (!policy.drift) drift.reset();
  }
  raw["strict"] = tri(strict);
  raw["limit"] = tri(limit);
  raw["limit_value"] = L ? json(*L) : json(nullptr);
  raw["drift"] = tri(drift);
  // Activity gates need an activity timer (cupti); with host/events timers they are null.
  std::optional<bool> parity, fallback;
  const json& sig = row["signatures"];
  if (measured && sig.is_object() && !sig.empty() && !pairs.empty()) {
    parity = fallback = true;
    for (const json* pp : pairs) {
      const json& p = *pp;
      const json& a = sig.at(p["baseline"].get<std::string>());
      const json& b = sig.at(p["candidate"].get<std::string>());
      *parity = *parity && a["A"] == b["A"] && a["L"] == b["L"] && a["K"] == b["K"] &&
                a["consistent"].get<bool>() && b["consistent"].get<bool>();
      *fallback = *fallback && b["undeclared"].empty();
    }
  }
  raw["parity"] = tri(parity);
  raw["fallback"] = tri(fallback);
  return raw;
}

void derive_row(json& row, const json& samples, const Policy& policy) {
  bool measured = row["disposition"] == "passed";
  // Statistics per pair.
  if (measured) {
    const json& sp = samples.at("pairs");
    if (sp.size() != row["pairs"].size()) throw AuditError("row '" + row["id"].get<std::string>() + "': sample pairs do not match the row's pairs");
    for (size_t i = 0; i < sp.size(); ++i) {
      auto gb = sp[i].at("baseline").get<std::vector<std::vector<double>>>();
      auto gc = sp[i].at("candidate").get<std::vector<std::vector<double>>>();
      std::vector<double> ab, ac;
      for (auto& g : gb) ab.insert(ab.end(), g.begin(), g.end());
      for (auto& g : gc) ac.insert(ac.end(), g.begin(), g.end());
      auto to_j = [](const SampleSummary& s) {
        return json{{"n", s.n}, {"median_us", s.median}, {"q1_us", s.q1}, {"q3_us", s.q3},
                    {"iqr_us", s.iqr}, {"min_us", s.min}, {"max_us", s.max}};
      };
      PairStats ps = pair_stats(gb, gc);
      json& p = row["pairs"][i];
      p["baseline_stats"] = to_j(summarize(ab));
      p["candidate_stats"] = to_j(summarize(ac));
      p["ratio"] = ps.ratio;
      p["group_ratios"] = ps.group_ratios;
      p["drift"] = ps.drift;
      p["groups_agree"] = ps.groups_agree;
    }
  } else {
    for (auto& p : row["pairs"]) {
      p["baseline_stats"] = nullptr;
      p["candidate_stats"] = nullptr;
      p["ratio"] = nullptr;
      p["group_ratios"] = nullptr;
      p["drift"] = nullptr;
      p["groups_agree"] = nullptr;
    }
  }
  json raw;
  {
    bool all_correct = !row["correctness"].empty();
    for (const auto& c : row["correctness"]) all_correct &= c["passed"].get<bool>();
    raw["correct"] = all_correct && row["disposition"] != "incorrect";
  }
  // The top-level pair gates judge the pairs by_baseline does not name.
  std::vector<const json*> top;
  for (const auto& p : row["pairs"])
    if (!policy.by_baseline.count(p["baseline"].get<std::string>())) top.push_back(&p);
  raw.update(pair_gates(row, top, policy, measured));
  if (!policy.by_baseline.empty()) {
    raw["by_baseline"] = json::object();
    for (const auto& [name, g] : policy.by_baseline) {
      std::vector<const json*> mine;
      for (const auto& p : row["pairs"])
        if (p["baseline"] == name) mine.push_back(&p);
      raw["by_baseline"][name] = pair_gates(row, mine, g, measured);
    }
  }
  json failed = json::array();
  // A row that did not run to the end (failed, not_supported, skipped, incorrect) fails every
  // policy, whatever gates it names: it stays in the denominators as a failure.
  if (row["disposition"] != "passed") failed.push_back("disposition");
  for (const auto& g : policy.gates)
    if (!(raw[g].is_boolean() && raw[g].get<bool>())) failed.push_back(g);
  for (const auto& [name, gs] : policy.by_baseline)
    for (const auto& g : gs.gates) {
      const json& v = raw["by_baseline"][name][g];
      if (!(v.is_boolean() && v.get<bool>())) failed.push_back(g + "@" + name);
    }
  row["verdicts"] = {{"raw", raw}, {"policy", failed.empty()}, {"failed", failed}};
}

json derive_summary(const json& rows) {
  json s;
  s["rows"] = rows.size();
  size_t pass = 0;
  json disp = json::object(), gate_fail = json::object();
  struct Acc {
    std::vector<double> ratios;
    std::map<std::string, std::vector<double>> by_tag;
    double sum_b = 0, sum_c = 0, min_r = 0;
    std::string min_row;
    size_t unmeasured = 0;
  };
  std::map<std::string, Acc> acc;
  for (const auto& r : rows) {
    pass += r["verdicts"]["policy"].get<bool>();
    std::string d = r["disposition"];
    disp[d] = disp.value(d, 0) + 1;
    for (const auto& g : r["verdicts"]["failed"]) gate_fail[g.get<std::string>()] = gate_fail.value(g.get<std::string>(), 0) + 1;
    for (const auto& p : r["pairs"]) {
      Acc& a = acc[p["baseline"].get<std::string>()];
      if (p["ratio"].is_null()) {
        ++a.unmeasured;
        continue;
      }
      double x = p["ratio"].get<double>();
      if (a.ratios.empty() || x < a.min_r) {
        a.min_r = x;
        a.min_row = r["id"];
      }
      a.ratios.push_back(x);
      a.sum_b += p["baseline_stats"]["median_us"].get<double>();
      a.sum_c += p["candidate_stats"]["median_us"].get<double>();
      for (auto it = r["tags"].begin(); it != r["tags"].end(); ++it)
        a.by_tag[it.key() + "=" + it.value().get<std::string>()].push_back(x);
    }
  }
  s["policy_passed"] = pass;
  s["policy_failed"] = rows.size() - pass;
  s["dispositions"] = disp;
  s["gate_failures"] = gate_fail;
  json pairs = json::object();
  for (auto& [name, a] : acc) {
    json j;
    j["measured_rows"] = a.ratios.size();
    j["unmeasured_rows"] = a.unmeasured;
    j["geomean_ratio"] = a.ratios.empty() ? json(nullptr) : json(geomean(a.ratios));
    j["min_ratio"] = a.ratios.empty() ? json(nullptr) : json(a.min_r);
    j["min_ratio_row"] = a.ratios.empty() ? json(nullptr) : json(a.min_row);
    j["sum_baseline_median_us"] = a.sum_b;
    j["sum_candidate_median_us"] = a.sum_c;
    j["by_tag"] = json::object();
    for (auto& [tag, v] : a.by_tag) j["by_tag"][tag] = {{"rows", v.size()}, {"geomean_ratio", geomean(v)}};
    pairs[name] = j;
  }
  s["by_baseline"] = pairs;
  return s;
}

}  // namespace kgate
