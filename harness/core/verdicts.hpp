#pragma once
// Statistics and verdicts, in one place. Every derived number of a row (pair statistics, side
// medians, throttled samples, activity signatures, gate verdicts) and of the summary is computed
// here from the recorded samples, the policy and the arms' declarations, so the writer and
// `kgate audit` derive them with the same code.
#include <map>
#include <string>
#include <vector>

#include "harness/core/gates.hpp"
#include "harness/core/policy.hpp"
#include "harness/core/records.hpp"

namespace kgate {

struct DeriveContext {
  double max_sm_clock_mhz = 0;  // the device's maximum SM clock; 0 = unknown (no throttle count)
  std::map<std::string, std::vector<std::string>> declared_kernels;  // arm -> declared kernel names
  // The ratio interval: the protocol's blocks per group and seed, and the method's parameters.
  int blocks = 0;
  uint64_t seed = 0;
  IntervalSpec interval;
};
// The protocol's record of the interval method (predicate.protocol.interval) and its reader
// (AuditError naming the field when absent or malformed).
json to_json(const IntervalSpec& s);
IntervalSpec interval_spec_from_json(const json& protocol);

// Fills the row's derived fields. `samples` must be given for a passed row (AuditError if not)
// and is ignored otherwise.
void derive_row(RowRecord& row, const RowSamples* samples, const Policy& policy, const DeriveContext& ctx);
Summary derive_summary(const std::vector<RowRecord>& rows);

// What failed on a derived row, as typed results, one per failing (gate, pair) of each entry of
// row.verdicts.failed in order (per failing arm for `correct`, and so for an incorrect row whose
// policy does not name `correct`, after its disposition): the recorded failure labels,
// explained by the gate table over the row's recorded figures. `level`: the receipt's interval
// level (protocol.interval.level). Every printer words these with gate_text (harness/report/).
std::vector<GateResult> failed_gates(const RowRecord& row, const Policy& policy, double level);

// Every arm of a receipt side by side (tuning runs pairing many variants): per row each arm's
// median (the candidate's from its first pairing) and its time over the anchor arm's, and the
// geomeans of those over the rows where every arm was measured.
struct WideTable {
  std::vector<std::string> arms;  // the candidate, then the baselines in pairing order
  std::string anchor;
  struct Row {
    std::string id;
    Disposition disposition = Disposition::skipped;
    std::map<std::string, double> median_us;
    std::vector<double> over_anchor;  // per arm; empty unless every arm was measured
  };
  std::vector<Row> rows;
  int complete_rows = 0;
  std::vector<double> geomean_over_anchor;  // per arm; empty when no row is complete
};
// anchor: an arm name, or empty for the first baseline; InputError naming the arms otherwise.
WideTable wide_table(const std::vector<RowRecord>& rows, const std::string& anchor);

// Merges per-call signature counts into `into`, keeping first-seen order.
void merge_signature_counts(std::vector<SignatureCount>& into, const std::vector<SignatureCount>& more);

}  // namespace kgate
