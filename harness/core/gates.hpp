#pragma once
// The gate table: every gate a policy can name, each in one entry that holds its name, its help
// line, whether it takes a value, and how it judges a pair into a GateResult. Policy parsing,
// the verdicts of `kgate run` and `kgate audit`, and every printer's explanation of a failure
// (harness/report/gate_text.hpp) read this table; adding a gate is adding an entry.
#include <optional>
#include <string>
#include <vector>

#include "harness/core/policy.hpp"
#include "harness/core/records.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

// One gate's judgement of one pair (a pair gate) or of one arm's check (`correct`), or why a row
// did not run (`disposition`): typed facts, worded by one printer (gate_text.hpp).
struct GateResult {
  std::string gate;      // a table name, or "disposition"
  std::string label;     // as the row's verdicts.failed names it: "strict", "limit@ssu.floor"
  std::string baseline;  // the judged pair's baseline; empty for a row gate
  bool judged = true;    // false: nothing could be judged (`reason` says why); the gate fails
  bool passed = false;
  // Passing needs `value relation threshold`, value being `measure` ("ratio interval lower bound").
  std::string measure, relation;
  std::optional<double> value, threshold;
  bool holds = false;  // whether `value relation threshold` holds (drift can hold and still fail)
  std::string reason;  // why not judged, or what else decided it (a refusal, groups disagreeing)
  // The pair's recorded figures, where the gate reads them.
  std::optional<double> ratio;
  std::optional<RatioInterval> interval;
  double level = 0;  // the interval's level (protocol.interval.level)
  std::optional<double> candidate_us, baseline_us;
  std::optional<std::vector<double>> group_ratios;
  std::optional<SignatureRecord> candidate_signature, baseline_signature;  // activity gates
  // `correct`: the arm whose check failed, its result and the row's tolerance.
  std::string arm;
  std::optional<Correctness> correctness;
  std::optional<Tolerance> tolerance;
  // `disposition`: the row's, and its recorded error.
  std::string disposition, error;
};

// What a pair gate reads: the row, one measured pair, the gate set judging it and the row's
// effective limit under that set (effective_limit).
struct PairInput {
  const RowRecord& row;
  const PairRecord& pair;
  const GateSet& gates;
  std::optional<double> limit;
};

struct GateDef {
  std::string name;
  std::string help;                                 // one line: what passing needs
  std::optional<double> GateSet::*value = nullptr;  // name(value) and the policy field `name` set this
  bool pair_gate = true;                            // false: `correct`, which judges the row's arms
  // Recorded on every row, named by the policy or not: the gates receipts have always held. A gate
  // added later is recorded only where a policy names it, so the receipts before it still audit.
  bool in_every_row = false;
  GateResult (*judge)(const PairInput&) = nullptr;  // pair gates: judged, passed and the facts
};

const std::vector<GateDef>& gate_table();
const GateDef* find_gate(const std::string& name);  // nullptr for a name not in the table
// "limit(L)" for a gate that takes a value, else the name.
std::string gate_usage(const GateDef& g);
// "correct, strict, strict_median, limit(L), drift(D), parity, fallback"
std::string gate_names_text(const std::string& sep = ", ");
// Per gate: its name (with its value) and help, wrapped at 101 columns, for --help.
std::string gate_help_text();

// The limit of gate set `gs` on `row`: its limit_by_tag entry for a tag the row has, else gs.limit.
std::optional<double> effective_limit(const RowRecord& row, const GateSet& gs);
// Whether the row's raw verdicts hold gate `g` of gate set `gs` (GateDef::in_every_row).
bool recorded(const GateDef& g, const GateSet& gs);

// Pair gate `g` on pair `p` of `row` as the policy judges it: a refusal the policy does not accept
// fails, an unmeasured pair is not judged, a measured one is judged by the entry.
GateResult judge_pair(const GateDef& g, const RowRecord& row, const PairRecord& p, const Policy& policy,
                      const GateSet& gs);
// `correct` on the row: one result per arm whose check failed (passed ones are left out).
std::vector<GateResult> correctness_results(const RowRecord& row);

}  // namespace kgate
