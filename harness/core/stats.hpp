#pragma once
// Pure statistics over sample vectors. Definitions (also in DESIGN.md):
//  - median: middle of the sorted values; even n -> mean of the two middle values.
//  - quantile(p): linear interpolation between closest ranks (Hyndman-Fan type 7, numpy's
//    default): h = (n-1)p, q = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
//  - q1 = quantile(0.25), q3 = quantile(0.75), iqr = q3 - q1.
//  - geomean: exp(mean(log x)); every x must be > 0.
//  - ratio = baseline median / candidate median (> 1: candidate faster).
//  - drift = max over groups |group ratio / pooled ratio - 1|.
// Empty input throws std::invalid_argument: there is no honest number to return.
#include <optional>
#include <vector>

namespace kgate {

double median(std::vector<double> v);
double quantile_sorted(const std::vector<double>& sorted, double p);
double geomean(const std::vector<double>& v);

struct SampleSummary {
  size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, iqr = 0, min = 0, max = 0;
};
SampleSummary summarize(std::vector<double> v);

struct PairStats {
  double ratio = 0;                  // pooled baseline median / pooled candidate median
  std::vector<double> group_ratios;  // per group, same definition within the group
  double drift = 0;                  // max |group/pooled - 1|
  bool groups_agree = true;          // every group ratio on the pooled side of 1
};
// groups_b[g], groups_c[g]: samples of baseline and candidate in group g.
PairStats pair_stats(const std::vector<std::vector<double>>& groups_b,
                     const std::vector<std::vector<double>>& groups_c);

}  // namespace kgate
