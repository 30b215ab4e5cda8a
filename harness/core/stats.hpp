#pragma once
// Pure statistics over sample vectors. Definitions (also in DESIGN.md):
//  - median: middle of the sorted values; even n -> mean of the two middle values.
//  - quantile(p): linear interpolation between closest ranks (Hyndman-Fan type 7, numpy's
//    default): h = (n-1)p, q = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
//  - q1 = quantile(0.25), q3 = quantile(0.75), iqr = q3 - q1.
//  - geomean: exp(mean(log x)); every x must be > 0.
//  - ratio = baseline median / candidate median (> 1: candidate faster).
//  - drift = max over groups |group ratio / pooled ratio - 1|.
//  - ratio interval: a hierarchical bootstrap of the ratio of pooled medians over the run's own
//    structure. One resample draws G groups with replacement, then, within each drawn group,
//    its B ABBA/BAAB blocks with replacement (a block's baseline and candidate samples travel
//    together); the statistic is baseline median / candidate median of the pooled draw. The
//    interval is the (1-level)/2 and (1+level)/2 type-7 quantiles of `resamples` statistics.
//    Group-level noise widens it (a run whose groups disagree is not resolved), and a block's
//    pairing is kept. The stream is splitmix64 from the given seed: identical everywhere.
// Empty input throws std::invalid_argument: there is no honest number to return.
#include <cstdint>
#include <optional>
#include <string>
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
struct IntervalSpec {
  std::string method = "hierarchical_block_bootstrap_percentile";
  double level = 0.99;
  int resamples = 2000;
};
struct RatioInterval {
  double lo = 0, hi = 0;
};
// groups_b[g] / groups_c[g]: group g's samples in call order, `blocks` equal consecutive blocks
// (throws std::invalid_argument when a group's length is not a multiple of `blocks`).
RatioInterval ratio_interval(const std::vector<std::vector<double>>& groups_b,
                             const std::vector<std::vector<double>>& groups_c, int blocks, const IntervalSpec& spec,
                             uint64_t seed);
// The per-pair seed: the run seed mixed with the row id and the pair's index.
uint64_t interval_seed(uint64_t run_seed, const std::string& row_id, size_t pair_index);

PairStats pair_stats(const std::vector<std::vector<double>>& groups_b,
                     const std::vector<std::vector<double>>& groups_c);

}  // namespace kgate
