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

// FASTER / SLOWER: resolved (the change interval excludes 1) and beyond the threshold; SAME: the
// interval lies within [1/(1+T), 1+T], or it is resolved but |change - 1| < T; UNRESOLVED:
// anything else; UNMEASURED: a side has no ratio (not a class of the change: the row's
// disposition says why).
enum class ChangeClass { faster, slower, same, unresolved, unmeasured };
std::string to_string(ChangeClass c);  // "FASTER", ...

struct ChangeInterval {
  double lo = 0, hi = 0;
};
// The interval of new_ratio / old_ratio: in log space each recorded interval has a lower and an
// upper half-width (log r - log lo, log hi - log r; 0 where the point lies outside its interval);
// the change's lower side is the new lower and the old upper half-widths in quadrature, its
// upper side the new upper and the old lower ones.
ChangeInterval change_interval(double old_ratio, const RatioInterval& old_ci, double new_ratio,
                               const RatioInterval& new_ci);
ChangeClass classify_change(double change, const ChangeInterval& ci, double threshold);

struct PairChange {
  std::string id, baseline;
  std::map<std::string, std::string> tags;  // the new receipt's
  Disposition old_disposition = Disposition::skipped, new_disposition = Disposition::skipped;
  std::optional<double> old_baseline_us, new_baseline_us, old_candidate_us, new_candidate_us;
  std::optional<double> old_ratio, new_ratio;
  std::optional<RatioInterval> old_ci, new_ci;
  std::optional<double> change;
  std::optional<ChangeInterval> change_ci;
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
  double threshold = 0.02;
  double level = 0.99;                                                  // the newer receipt's interval level
  std::vector<PairChange> pairs;                                        // in the newer receipt's row order
  std::vector<std::pair<std::string, std::string>> only_old, only_new;  // (row id, baseline)
  std::map<std::string, int64_t> classes;                               // "FASTER" -> pairs
  std::map<std::string, GeomeanChange> by_baseline;                     // over pairs with a change
  std::map<std::string, std::map<std::string, GeomeanChange>> by_tag;   // baseline -> "k=v" -> ...
  std::vector<RowFailure> old_failures, new_failures;                   // in row order
  bool any_slower() const;
};

// Throws InputError("no rows match ...") when no (row id, baseline) pair is in both receipts.
// The printers: harness/report/compare.hpp.
CompareResult compare_receipts(const ReceiptView& old_v, const std::vector<RowRecord>& old_rows,
                               const ReceiptView& new_v, const std::vector<RowRecord>& new_rows, double threshold);

}  // namespace kgate
