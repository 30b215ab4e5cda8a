#pragma once
// The carryover effect of a paired run (`kgate carryover R`), the crossover-trial term for what a
// treatment leaves behind for the next one. Each timed sample is split by the arm whose call came
// just before it in the run (timed or warm-up): another arm's (after other) or its own (repeat).
// A cold run flushes the L2 before every sample either way (the flush's memset kernel runs between
// any two samples), but not what the arm before left in the SMs' instruction and constant caches
// or in the driver's state: an arm whose time depends on those runs longer after another arm.
// Serving runs a kernel after other kernels, so that sample is the one production sees; a
// receipt's medians pool both kinds (the counterbalanced schedule gives both arms equal shares).
//
// The order is rebuilt from the receipt's protocol, as the executor runs it
// (harness/run/executor.cpp): per unit (a row in a group), a warm-up of every arm in the run's
// order (candidate, then the baselines), then per baseline in order its pair's letters
// (block_letters(protocol, group, row index); A = the baseline, B = the candidate). A unit's first
// timed sample follows the last arm warmed; each later one follows the sample before it. A run
// without a warm-up (warm-up calls and time both 0) leaves what ran before a unit's first sample
// unknown (another row's call, the check's kernels), so that sample is in neither subset.
//
// Nothing here is recorded in the receipt or judged by a gate: these are medians of subsets of
// the audited samples, with no interval, for a look at where the time goes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/jcs.hpp"
#include "harness/core/schedule.hpp"

namespace kgate {

// The arm each timed sample of one unit follows, in timed order: arms[i] is sample i's arm and
// after[i] the arm timed (or, for i = 0, warmed) just before it; "" for i = 0 when warmed_up is false.
struct UnitOrder {
  std::vector<std::string> arms, after;
};
UnitOrder unit_order(const ScheduleConfig& schedule, int group, size_t row_index, const std::string& candidate,
                     const std::vector<std::string>& baselines, bool warmed_up = true);

struct CarryoverSide {
  int64_t n_after_other = 0, n_repeat = 0;
  std::optional<double> after_other_us, repeat_us;                           // medians, pooled over the groups
  std::optional<std::pair<double, double>> after_other_range, repeat_range;  // min, max
  // after_other_us / repeat_us (both > 0): > 1 means the arm runs longer right after another arm;
  // printed as a percent, carryover - 1.
  std::optional<double> carryover() const;
};
// One activity of one arm (CUPTI receipts: a kernel, a memcpy), its time per call split the same way.
struct CarryoverActivity {
  std::string arm, activity;
  CarryoverSide split;
};
struct CarryoverPair {
  std::string row, baseline;
  std::map<std::string, std::string> tags;
  CarryoverSide base, cand;
  // Both arms' activities over this pair's calls, for arms of more than one activity: which of an
  // arm's kernels carries its carryover. Empty where the receipt has no activity series.
  std::vector<CarryoverActivity> activities;
  std::optional<double> ratio;  // as recorded in the receipt: baseline median / candidate median
  // The same ratio over the samples that follow another arm, and over the repeats.
  std::optional<double> ratio_after_other, ratio_repeat;
};
struct CarryoverGeomeans {
  int64_t rows = 0;
  double ratio = 1, ratio_after_other = 1, ratio_repeat = 1, base_carryover = 1, cand_carryover = 1;
};
struct CarryoverResult {
  std::string source, body_sha256, git_commit, table, device, candidate;
  std::vector<std::string> baselines;
  ScheduleConfig schedule;
  bool warmed_up = true;             // protocol.warmup_min_calls or warmup_min_us > 0
  std::optional<bool> cold_l2;       // protocol.cold_l2 as recorded
  int64_t world_size = 1;            // the largest of the rows' (a rank run's ranks agree before every sample)
  std::vector<CarryoverPair> pairs;  // measured (row, baseline) pairs, in the receipt's order
  std::map<std::string, CarryoverGeomeans> by_baseline;  // over each baseline's measured pairs
};
// From an audited receipt and its sidecar (AuditResult::receipt, ::samples). Throws AuditError
// when the receipt's protocol does not name the schedule, a measured row has no samples, or a
// row's pairs or sample counts do not match the order the protocol gives.
CarryoverResult carryover(const json& receipt, const json& samples, const std::string& source);
// The printers: harness/report/carryover.hpp.

}  // namespace kgate
