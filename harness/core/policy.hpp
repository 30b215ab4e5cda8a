#pragma once
// Policies: which gates a row must pass, with their values. Parsed from a --policy spec, a JSON
// policy file, or a receipt's recorded policy; every value is checked (finite, >= 0).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"

namespace kgate {

// Gates and their values. Pair gates (strict, limit, drift, parity, fallback) judge pairs; the
// row gate `correct` judges the row.
struct GateSet {
  std::vector<std::string> gates;              // subset of: correct strict limit drift parity fallback
  std::optional<double> limit;                 // limit(L): candidate <= (1 + L) * baseline, inclusive
  std::optional<double> drift;                 // drift(D)
  std::map<std::string, double> limit_by_tag;  // "key=value" -> L, overrides `limit` on rows so tagged
};

struct Policy : GateSet {
  // Per-baseline pair gates: a pair whose baseline is named here is judged by these gates and
  // not by the top-level pair gates (failures read "<gate>@<baseline>"), so one campaign can
  // hold the candidate to "strict" against a baseline and to "limit" against a floor. Only
  // from a JSON policy file; absent from a policy's JSON when empty.
  std::map<std::string, GateSet> by_baseline;
  // Baselines whose refusal of a row (an unsupported case, an arm built for another
  // architecture) the reviewer accepts: on such a row the run leaves that pair unmeasured, with
  // the baseline's reason recorded in the row's `refused`, and measures and judges everything
  // else; the pair's gates are not judged. Each entry names an arm in full or by its bare name,
  // the part after the last ':' ("ssu.flashinfer_stock" matches
  // "export:libkgate_flashinfer_ssu.so:ssu.flashinfer_stock"). A refusal the policy judging the
  // row does not accept fails that pair's gates; a row gate (`correct`) judges the arms that ran.
  // Only from a JSON policy file (`accept_refusals`); absent from a policy's JSON when empty.
  std::vector<std::string> accept_refusals;
  bool accepts_refusal(const std::string& arm) const;
  // The gate set that judges the pair against `baseline`: its by_baseline entry, else the
  // top-level gates.
  const GateSet& gates_for(const std::string& baseline) const {
    auto it = by_baseline.find(baseline);
    return it == by_baseline.end() ? *this : it->second;
  }
  // Whether a failure label's baseline part (after '@'; empty for a top-level gate) names the
  // gate set that judges the pair against `baseline`.
  bool judges(const std::string& label_baseline, const std::string& baseline) const {
    return label_baseline.empty() ? !by_baseline.count(baseline) : label_baseline == baseline;
  }
  json to_json() const;
  // Throws InputError naming `where` and the field for anything but a valid policy.
  static Policy from_json(const json& j, const std::string& where);
  // "correct,strict,limit(0.045),drift(0.02)" or a path to a JSON policy file; at most
  // kMaxPolicySpecBytes.
  static Policy parse(const std::string& spec);
};

inline constexpr size_t kMaxPolicySpecBytes = 64 * 1024;

// Throws InputError (naming `where`) when an accept_refusals entry matches none of `baselines`
// or matches the candidate: only a baseline's refusal can be accepted.
void check_accept_refusals(const Policy& p, const std::string& candidate, const std::vector<std::string>& baselines,
                           const std::string& where);

const std::vector<std::string>& all_gate_names();
// Throws InputError unless g is one of all_gate_names().
void check_gate_name(const std::string& g, const std::string& where);

}  // namespace kgate
