#pragma once
// Per-row verdicts (policies: policy.hpp). The verdict functions read recorded numbers only, so the
// writer and `kgate audit` derive them with the same code.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"
#include "harness/core/policy.hpp"

namespace kgate {

// Fills row["pairs"][i] statistics from samples and row["verdicts"] from the policy.
// samples: {"pairs": [{"baseline": [[g0...], ...], "candidate": [[...]]}]} (microseconds).
void derive_row(json& row, const json& samples, const Policy& policy);
json derive_summary(const json& rows);

}  // namespace kgate
