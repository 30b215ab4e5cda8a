#pragma once
// Row-by-row change between two receipts (`kgate compare OLD NEW`), after google/benchmark's
// compare.py and nvbench_compare: pairs are matched by row id and baseline name; each matched
// pair's change is new ratio / old ratio (ratio = baseline median / candidate median, so a
// change > 1 means the candidate gained on its baseline), with an interval made from the two
// recorded ratio intervals, and a class.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/gates.hpp"
#include "harness/core/receipt_view.hpp"

namespace kgate {

// FASTER / SLOWER: resolved (the change interval excludes 1) and beyond the threshold T; SAME:
// equivalent within the margin M by two one-sided tests at 5 % each (the change's 90 % interval
// lies within [1/(1+M), 1+M]); UNRESOLVED: anything else; UNMEASURED: a side has no ratio (not a
// class of the change: the row's disposition says why).
enum class ChangeClass { faster, slower, same, unresolved, unmeasured };
std::string to_string(ChangeClass c);  // "FASTER", ...

// How two receipts' ratios are told apart. run_noise: the log-space standard deviation of a pair's
// ratio between two runs of one build beyond what each run's interval holds (the GPU's state and
// the buffers' addresses change between processes), added to both sides of every change interval.
// The defaults come from back-to-back H100 receipts of the same kernels (ssu vs FlashInfer, 107
// pairs; sparse_mla vs its baseline and floor, 186): pairs moved by up to 5.7 % with intervals of
// +-1 %, an excess of 0.014-0.021 over the intervals; with run_noise 0.025 and margin 0.08 no pair
// was FASTER or SLOWER and 92 % and 90 % were SAME (0.02 and 0.05: 1 SLOWER, 68 % and 60 % SAME).
struct CompareRule {
  double threshold = 0.02;  // T
  double margin = 0.08;     // M
  double run_noise = 0.025;
  static constexpr double kEquivalenceLevel = 0.90;  // two one-sided tests at 5 %
};
// Throws InputError naming the flag (--threshold, --margin, --run-noise) of a value out of range.
void check_compare_rule(const CompareRule& rule);

struct ChangeInterval {
  double lo = 0, hi = 0;
};
// The two-sided standard normal quantile of `level` (1.96 at 0.95).
double normal_quantile_two_sided(double level);
// The interval of new_ratio / old_ratio at `level`: in log space each recorded interval has a lower
// and an upper half-width (log r - log lo, log hi - log r; 0 where the point lies outside its
// interval), read as a normal quantile at its receipt's level; the change's lower side is the new
// lower and the old upper deviations and run_noise in quadrature, its upper side the new upper and
// the old lower ones and run_noise, each side times the normal quantile of `level`.
struct LeveledRatio {
  double ratio;
  RatioInterval ci;
  double level;  // its receipt's interval level
};
ChangeInterval change_interval(const LeveledRatio& old_r, const LeveledRatio& new_r, double run_noise, double level);
ChangeClass classify_change(double change, const ChangeInterval& ci, const ChangeInterval& equivalence_ci,
                            const CompareRule& rule);

struct PairChange {
  std::string id, baseline;
  std::map<std::string, std::string> tags;  // the new receipt's
  Disposition old_disposition = Disposition::skipped, new_disposition = Disposition::skipped;
  std::optional<double> old_baseline_us, new_baseline_us, old_candidate_us, new_candidate_us;
  std::optional<double> old_ratio, new_ratio;
  std::optional<RatioInterval> old_ci, new_ci;
  std::optional<double> change;
  std::optional<ChangeInterval> change_ci;       // at the receipts' level, run noise included
  std::optional<ChangeInterval> equivalence_ci;  // at CompareRule::kEquivalenceLevel
  ChangeClass cls = ChangeClass::unmeasured;
};

struct GeomeanChange {
  int64_t pairs = 0;
  double geomean = 1;
};

struct CompareSide {
  std::string source, body_sha256, git_commit, table, cases_sha256, device, candidate;
  std::vector<std::string> baselines;
};

// One failed gate of a receipt's row under its recorded policy (failed_gates).
struct RowFailure {
  std::string row;
  Disposition disposition = Disposition::skipped;
  GateResult result;
};

struct CompareResult {
  CompareSide old_side, new_side;
  CompareRule rule;
  double level = 0.99;                                                  // the newer receipt's interval level
  std::vector<PairChange> pairs;                                        // in the newer receipt's row order
  std::vector<std::pair<std::string, std::string>> only_old, only_new;  // (row id, baseline)
  std::map<std::string, int64_t> classes;                               // "FASTER" -> pairs
  std::map<std::string, GeomeanChange> by_baseline;                     // over pairs with a change
  std::map<std::string, std::map<std::string, GeomeanChange>> by_tag;   // baseline -> "k=v" -> ...
  std::vector<RowFailure> old_failures, new_failures;                   // in row order
  bool any(ChangeClass cls) const;                                      // a pair of that class
  bool any_slower() const { return any(ChangeClass::slower); }
};

// Throws InputError("no rows match ...") when no (row id, baseline) pair is in both receipts.
// The printers: harness/report/compare.hpp.
CompareResult compare_receipts(const ReceiptView& old_v, const std::vector<RowRecord>& old_rows,
                               const ReceiptView& new_v, const std::vector<RowRecord>& new_rows,
                               const CompareRule& rule);

}  // namespace kgate
