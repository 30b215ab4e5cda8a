#pragma once
// Statistics and verdicts, in one place. Every derived number of a row (pair statistics, side
// medians, throttled samples, activity signatures, gate verdicts) and of the summary is computed
// here from the recorded samples, the policy and the arms' declarations, so the writer and
// `kgate audit` derive them with the same code.
#include <map>
#include <string>
#include <vector>

#include "harness/core/gates.hpp"
#include "harness/core/records.hpp"

namespace kgate {

struct DeriveContext {
  double max_sm_clock_mhz = 0;  // the device's maximum SM clock; 0 = unknown (no throttle count)
  std::map<std::string, std::vector<std::string>> declared_kernels;  // arm -> declared kernel names
};

// Fills the row's derived fields. `samples` must be given for a passed row (AuditError if not)
// and is ignored otherwise.
void derive_row(RowRecord& row, const RowSamples* samples, const Policy& policy, const DeriveContext& ctx);
Summary derive_summary(const std::vector<RowRecord>& rows);

// Merges per-call signature counts into `into`, keeping first-seen order.
void merge_signature_counts(std::vector<SignatureCount>& into, const std::vector<SignatureCount>& more);

}  // namespace kgate
