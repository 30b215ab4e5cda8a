#pragma once
// Typed records of a campaign. json lives only at the edges (journal, receipt, sidecar,
// reports): everything between the executor and the receipt writer passes these, and the
// auditor reads a receipt back into them (validating its shape) before deriving anything.
//
//   UnitSpec ──executor──► UnitResult (one RankResult per rank) ──journal──► assemble
//   assemble ──► RowRecord + RowSamples (sidecar) ──derive (verdicts.hpp)──► Summary ──► seal
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/core/cases.hpp"
#include "harness/core/family.hpp"
#include "harness/core/intervals.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/schedule.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

// How a row ended (cutlass profiler's Disposition). Rows a family's schema rejects never get
// here: the case table is refused whole, before any work (a canonical table with an invalid
// row is a broken table). `invalid_problem` is kept for a problem an arm or context finds
// impossible to build at run time (e.g. a pool larger than the device's memory).
enum class Disposition { passed, incorrect, failed, not_supported, invalid_problem, skipped };
std::string to_string(Disposition d);
Disposition disposition_from_string(const std::string& s);  // throws std::invalid_argument

// One arm's output checked against the oracle.
struct Correctness {
  bool passed = false;
  double max_abs_err = 0;  // over finite elements
  double max_rel_err = 0;  // |out-ref| / max(|ref|, atol)
  std::string worst;       // coordinates of the worst element
  double worst_out = 0, worst_ref = 0;
  int64_t elements = 0, mismatches = 0, nonfinite = 0, unwritten = 0;
  std::string note;  // e.g. "pad slots: pool entries bit-identical"
  json to_json(const std::string& arm) const;
};

// Activity signature of one call: records / launches / distinct kernel names.
struct Signature {
  int64_t records = 0, launches = 0;      // activity records, launches per call
  std::vector<std::string> kernel_names;  // distinct, sorted
  bool operator==(const Signature&) const = default;
  auto operator<=>(const Signature&) const = default;
};

// One timed call of one arm, as a timer saw it.
struct Sample {
  double us = 0;                       // the timer's value for one call
  std::optional<Signature> signature;  // activity timers only
  double sm_clock_mhz = 0;             // 0 when unknown
  double events_us = 0;                // events timer alongside, when available (0 = none)
  double self_us = 0;                  // the kernel's own clock (calibration arms), 0 = none
  // CUPTI timer: the call's activity as merged [start, end) ns intervals on the process's one
  // clock (every device it touched); empty for other timers. Ranks' samples are unioned from these.
  std::vector<std::pair<uint64_t, uint64_t>> intervals_ns;
  // CUPTI timer: the call's time per activity, us (each kernel name, "memcpy", "memset": summed
  // durations, overlaps not merged), so a multi-kernel arm shows where its time goes.
  std::map<std::string, double> activity_us;
};

// Series measured beside the protocol timer, per arm, in call order.
struct SideSeries {
  std::vector<double> events_us, self_us, sm_clock_mhz;
  // A rank's series (journal only): per call, its intervals flattened, each timestamp t as two
  // integers t / 1e9 and t % 1e9 (start_s, start_ns, end_s, end_ns, ...): a journal's JSON numbers
  // are doubles when it is read back, exact only below 2^53, and CUPTI's ns are ~1.7e18.
  std::vector<std::vector<uint64_t>> intervals_ns;
  // One call's intervals in that form, and back (device: the rank, for the union).
  static std::vector<uint64_t> flatten_intervals(const std::vector<std::pair<uint64_t, uint64_t>>& iv);
  static void append_intervals(const std::vector<uint64_t>& flat, int device, std::vector<Interval>& out);
  // The row's series (assembled from every rank, world size > 1): per call, the length of the
  // union of every rank's intervals of that call, us: the cross-device union.
  std::vector<double> cross_device_us;
  // Per call, the call's time per activity (Sample::activity_us); a name a call did not run is
  // absent from that call (0).
  std::vector<std::map<std::string, double>> activity_us;
  bool empty() const {
    return events_us.empty() && self_us.empty() && sm_clock_mhz.empty() && intervals_ns.empty() &&
           cross_device_us.empty() && activity_us.empty();
  }
};

// A distinct activity signature and how many calls showed it.
struct SignatureCount {
  Signature signature;
  int64_t calls = 0;
};

struct ArmCheck {
  std::string arm;
  Correctness result;
};

// The timed-call proof's settings (a protocol field): K input sets per row, and the share of an
// arm's timed calls, besides the last of each unit, whose outputs are verified.
struct ProofConfig {
  int input_sets = 3;
  double verified_share = 0.125;
};

// One arm's check on one input set (set 0: the row's seed; set 1: a seed derived from the run's).
struct SeedCheck {
  int set = 0;
  bool passed = false;
  int64_t mismatches = 0;  // mismatched, non-finite and unwritten elements
  double max_abs_err = 0;
};

// One arm's timed calls and their proof (per unit, or summed over a row's units and ranks): how
// many were verified against the oracle of the input set they were given, how many of those
// failed, and the first failure named ("arm X: timed call 17 of group 2 (input set 1): ...").
struct CallProof {
  int64_t timed = 0, verified = 0, failed = 0;
  std::string first_failure;
  void add(const CallProof& o);
};

// A row's `proof` block: its input sets and their seeds, and per arm its checks per seed and its
// timed calls' proof. A recorded fact; a row with a failed check or verified call is never passed.
struct ArmProof {
  std::vector<SeedCheck> checks;
  CallProof calls;
};
struct RowProof {
  int input_sets = 0;
  std::vector<uint64_t> seeds;  // per input set; set 0 is the row's seed
  std::map<std::string, ArmProof> arms;
  // The first failure of a check or verified call, "" when none.
  std::string failure() const;
};

// What a row's correctness phase found (run by the first unit of the row).
struct RowCheck {
  Disposition disposition = Disposition::passed;
  std::string error;                    // why, when not passed
  std::vector<ArmCheck> checks;         // every arm, in the run's arm order
  std::map<std::string, json> configs;  // arm -> the launch configuration its heuristics chose
  // Baselines that refused the row where the policy accepts it (arm -> reason): neither checked
  // nor timed; the row goes on with the other arms.
  std::map<std::string, std::string> refused;
  // The row's input sets' seeds (set 0 first) and every checked arm's checks on sets 0 and 1
  // (`checks` holds set 0's in full).
  std::vector<uint64_t> seeds;
  std::map<std::string, std::vector<SeedCheck>> seed_checks;
};

// One (row, group) of the plan, as handed to an executor.
struct UnitSpec {
  size_t row = 0;  // index into the plan's rows
  std::string row_id;
  int group = 0;
  uint64_t seed = 0;         // the row's input seed
  bool check = false;        // run the row's correctness phase first
  bool last_of_row = false;  // the row's last unit: its inputs may be freed afterwards
  std::string letters;       // 'A' (baseline) / 'B' (candidate) per sample slot of each pair
};

// What one rank measured in one unit.
struct RankResult {
  int rank = 0;
  // Per pair (the row's pair order): the baseline's and candidate's samples of this unit.
  std::vector<std::vector<double>> baseline, candidate;
  std::map<std::string, SideSeries> side;                         // per arm
  std::map<std::string, std::vector<SignatureCount>> signatures;  // per arm
  std::map<std::string, CallProof> proof;                         // per arm: its timed calls' proof
};

struct UnitResult {
  std::string row_id;
  int group = 0;
  std::optional<RowCheck> check;  // present when the unit ran the correctness phase
  std::vector<RankResult> ranks;  // one per rank (world size 1: one); empty when not timed
  std::string error;              // non-empty: the unit failed (device or runtime error)
  // A rank's result only: it stopped the unit because another rank of the job failed it
  // (RankAbandoned); `error` says so, and the failing rank's result carries the cause.
  bool abandoned = false;
  bool timed() const { return !ranks.empty(); }
};

// The campaign's plan: the (filtered) case table, the arms, and every unit in schedule order.
struct PlanArm {
  std::string name, role;  // role in this run: "candidate" or "baseline"
  const Implementation* impl = nullptr;
};
struct Plan {
  CaseTable table;
  const Family* family = nullptr;
  std::vector<PlanArm> arms;  // the candidate first, then the baselines in --baseline order
  std::string candidate;
  std::vector<std::string> baselines;  // the row's pairs: (baselines[i], candidate)
  // Baselines whose refusal of a row the run's policy accepts (Policy::accept_refusals).
  std::set<std::string> may_refuse;
  ScheduleConfig schedule;
  ProofConfig proof;
  double warmup_min_us = 1000;
  int warmup_min_calls = 3;
  std::vector<UnitSpec> units;  // schedule order
  const Implementation& impl(const std::string& arm) const;
};

json to_json(const UnitResult& u);
UnitResult unit_result_from_json(const json& j);  // throws InputError on a malformed record

// ---- The receipt's row and its samples -------------------------------------------------------

struct SampleStats {
  int64_t n = 0;
  double median_us = 0, q1_us = 0, q3_us = 0, iqr_us = 0, min_us = 0, max_us = 0;
};

struct PairRecord {
  std::string baseline, candidate;
  // Derived from the samples (absent when the row was not measured).
  std::optional<SampleStats> baseline_stats, candidate_stats;
  std::optional<double> ratio, drift;
  std::optional<std::vector<double>> group_ratios;
  std::optional<bool> groups_agree;
  std::optional<RatioInterval> ratio_ci;  // the ratio's confidence interval (protocol.interval says how)
};

struct SignatureRecord {
  int64_t A = 0, L = 0, K = 0, calls = 0;
  std::vector<std::string> names, undeclared;
  bool consistent = true;
};

struct SideSummary {
  double median = 0, min = 0, max = 0;
  int64_t n = 0;
};

struct Verdicts {
  json raw = json::object();  // gate -> true/false/null, by_baseline -> gate -> ...
  bool policy = false;
  std::vector<std::string> failed;
};

struct RowRecord {
  // Recorded facts.
  std::string id, family;
  json params = json::object();
  std::map<std::string, std::string> tags;
  Tolerance tolerance;
  std::vector<ArmCheck> correctness;
  std::map<std::string, json> config;
  Disposition disposition = Disposition::skipped;
  std::optional<std::string> error;
  // Baselines whose refusal of the row the run's policy accepted (arm -> reason): their pairs are
  // not measured (no samples, no statistics); the other arms ran. A recorded fact.
  std::map<std::string, std::string> refused;
  // The timed-call proof (absent in receipts made before it).
  std::optional<RowProof> proof;
  std::vector<PairRecord> pairs;
  // The family's model of the work one call does (bytes moved, FLOPs), from the params alone;
  // absent when the family has no model.
  std::optional<Work> work;
  // Derived from the samples, the policy and the arms' declarations (verdicts.hpp).
  std::optional<std::map<std::string, SignatureRecord>> signatures;
  std::optional<std::map<std::string, SideSummary>> events_timer_us, self_clock_us, sm_clock_mhz;
  // Rows of several ranks timed with CUPTI: per arm, the cross-device union of its calls
  // (written only where present: single-rank receipts have no such field).
  std::optional<std::map<std::string, SideSummary>> cross_device_us;
  // CUPTI rows: per arm, per activity (kernel name, "memcpy", "memset"), its time per call, 0 in
  // calls that did not run it (written only where present: receipts before it have no such field).
  std::optional<std::map<std::string, std::map<std::string, SideSummary>>> activity_us;
  std::optional<int64_t> throttled_samples;
  Verdicts verdicts;
};

// A row's raw samples as the sidecar holds them. Per pair, per group: the baseline's and the
// candidate's samples, each the maximum over ranks of that sample (world size 1: the rank's).
struct RowSamples {
  int world_size = 1;
  std::vector<std::vector<std::vector<double>>> baseline, candidate;  // [pair][group][sample]
  std::map<std::string, SideSeries> side;                             // per arm, pooled over groups
  std::map<std::string, std::vector<SignatureCount>> signatures;      // per arm, merged over groups
};

struct TagSummary {
  int64_t rows = 0;
  double geomean_ratio = 0;
};
struct BaselineSummary {
  int64_t measured_rows = 0, unmeasured_rows = 0;
  std::optional<double> geomean_ratio, min_ratio;
  std::optional<std::string> min_ratio_row;
  double sum_baseline_median_us = 0, sum_candidate_median_us = 0;
  std::map<std::string, TagSummary> by_tag;
};
struct Summary {
  int64_t rows = 0, policy_passed = 0, policy_failed = 0;
  std::map<std::string, int64_t> dispositions, gate_failures;
  std::map<std::string, BaselineSummary> by_baseline;
};

json to_json(const RowRecord& r);
json to_json(const RowSamples& s);
json to_json(const Summary& s);
// Readers validate the shape and throw AuditError naming the field ("row 'x': field 'pairs[0].ratio':
// not a number"): nothing downstream looks up a key that may be missing.
RowRecord row_record_from_json(const json& j);
RowSamples row_samples_from_json(const json& j, const std::string& row_id);
Summary summary_from_json(const json& j);

}  // namespace kgate
