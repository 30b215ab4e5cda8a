#pragma once
// The carryover effect of a paired run (`kgate carryover R`), the crossover-trial term for what a
// treatment leaves behind for the next one. The ABBA/BAAB schedule (schedule.hpp) times each arm's
// samples in runs of m or 2m: the first sample of a run follows a call of another arm, the rest
// follow the same arm's. The flush before every sample empties the L2 either way, but not what the
// arm before left in the SMs' instruction caches, their L1 and constant caches, or the driver's
// state: an arm whose time depends on those shows a longer first sample of its runs. Serving runs
// a kernel after other kernels, so that first sample is the one production sees; a receipt's
// medians pool both kinds (the counterbalanced schedule gives both arms equal shares).
//
// The order is rebuilt from the receipt's protocol, as the executor ran it (harness/run/executor.cpp):
// per unit (a row in a group), a warm-up of every arm in the run's order (candidate, then the
// baselines), then per baseline in order its pair's letters (block_letters(protocol, group, row
// index); A = the baseline, B = the candidate). A unit's first timed sample follows the last arm
// warmed; each later one follows the sample before it.
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
// after[i] the arm timed (or, for i = 0, warmed) just before it.
struct UnitOrder {
  std::vector<std::string> arms, after;
};
UnitOrder unit_order(const ScheduleConfig& schedule, int group, size_t row_index, const std::string& candidate,
                     const std::vector<std::string>& baselines);

struct CarryoverSide {
  int64_t n_after_other = 0, n_repeat = 0;
  std::optional<double> after_other_us, repeat_us;  // medians, pooled over the groups
  std::optional<std::pair<double, double>> after_other_range, repeat_range;  // min, max
  // after_other_us / repeat_us: > 1 means the arm runs longer right after another arm.
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
  std::vector<CarryoverPair> pairs;                    // measured (row, baseline) pairs, in the receipt's order
  std::map<std::string, CarryoverGeomeans> by_baseline;  // over each baseline's measured pairs
};
// From an audited receipt and its sidecar (AuditResult::receipt, ::samples). Throws AuditError
// when the receipt's protocol does not name the schedule, or a row's sample counts do not match
// the order the protocol gives.
CarryoverResult carryover(const json& receipt, const json& samples, const std::string& source);
std::string carryover_markdown(const CarryoverResult& c);
json carryover_json(const CarryoverResult& c);  // schema kgate.carryover/1

}  // namespace kgate
