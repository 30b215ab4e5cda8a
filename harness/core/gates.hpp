#pragma once
// Policies and per-row verdicts. The verdict functions read recorded numbers only, so the
// writer and `kgate audit` derive them with the same code.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"

namespace kgate {

// Gates and their values. Pair gates (strict, limit, drift, parity, fallback) judge pairs; the
// row gate `correct` judges the row.
struct GateSet {
  std::vector<std::string> gates;  // subset of: correct strict limit drift parity fallback
  std::optional<double> limit;     // limit(L): candidate <= (1 + L) * baseline, inclusive
  std::optional<double> drift;     // drift(D)
  std::map<std::string, double> limit_by_tag;  // "key=value" -> L, overrides `limit` on rows so tagged
};

struct Policy : GateSet {
  // Per-baseline pair gates: a pair whose baseline is named here is judged by these gates and
  // not by the top-level pair gates (failures read "<gate>@<baseline>"), so one campaign can
  // hold the candidate to "strict" against a baseline and to "limit" against a floor. Only
  // from a JSON policy file; absent from a policy's JSON when empty.
  std::map<std::string, GateSet> by_baseline;
  json to_json() const;
  static Policy from_json(const json& j, const std::string& where);
  // "correct,strict,limit(0.045),drift(0.02)" or a path to a JSON policy file.
  static Policy parse(const std::string& spec);
};

const std::vector<std::string>& all_gate_names();

// Fills row["pairs"][i] statistics from samples and row["verdicts"] from the policy.
// samples: {"pairs": [{"baseline": [[g0...], ...], "candidate": [[...]]}]} (microseconds).
void derive_row(json& row, const json& samples, const Policy& policy);
json derive_summary(const json& rows);

}  // namespace kgate
