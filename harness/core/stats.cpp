#include "harness/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/core/schedule.hpp"

namespace kgate {

double median(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("median of no samples");
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  // n odd: the middle element; n even: mean of the two middle elements (n = 2 included).
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double quantile_sorted(const std::vector<double>& x, double p) {
  if (x.empty()) throw std::invalid_argument("quantile of no samples");
  if (x.size() == 1) return x[0];  // n = 1: every quantile is the one value
  double h = (static_cast<double>(x.size()) - 1) * p;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return x.back();  // p = 1
  return x[lo] + (h - static_cast<double>(lo)) * (x[lo + 1] - x[lo]);
}

double geomean(const std::vector<double>& v) {
  if (v.empty()) throw std::invalid_argument("geomean of no values");
  double s = 0;
  for (double x : v) {
    if (!(x > 0)) throw std::invalid_argument("geomean of a value that is not > 0");
    s += std::log(x);
  }
  return std::exp(s / static_cast<double>(v.size()));
}

SampleSummary summarize(std::vector<double> v) {
  if (v.empty()) throw std::invalid_argument("summary of no samples");
  std::sort(v.begin(), v.end());
  SampleSummary s;
  s.n = v.size();
  s.median = median(v);
  s.q1 = quantile_sorted(v, 0.25);
  s.q3 = quantile_sorted(v, 0.75);
  s.iqr = s.q3 - s.q1;
  s.min = v.front();
  s.max = v.back();
  return s;
}

PairStats pair_stats(const std::vector<std::vector<double>>& gb, const std::vector<std::vector<double>>& gc) {
  if (gb.size() != gc.size() || gb.empty())
    throw std::invalid_argument("pair_stats: baseline and candidate group counts differ or are 0");
  std::vector<double> pb, pc;
  PairStats ps;
  for (size_t g = 0; g < gb.size(); ++g) {
    pb.insert(pb.end(), gb[g].begin(), gb[g].end());
    pc.insert(pc.end(), gc[g].begin(), gc[g].end());
    double mc = median(gc[g]);
    if (!(mc > 0)) throw std::invalid_argument("pair_stats: candidate median is not > 0");
    ps.group_ratios.push_back(median(gb[g]) / mc);
  }
  double mc = median(pc);
  if (!(mc > 0)) throw std::invalid_argument("pair_stats: candidate median is not > 0");
  ps.ratio = median(pb) / mc;
  for (double r : ps.group_ratios) {
    ps.drift = std::max(ps.drift, std::fabs(r / ps.ratio - 1));
    // A tie on either side (exactly 1) counts as disagreement only if the other side is not.
    if ((r > 1) != (ps.ratio > 1)) ps.groups_agree = false;
  }
  return ps;
}

namespace {

// An unbiased index in [0, n) from the stream (rejection sampling, as seeded_permutation).
size_t uniform_index(uint64_t& state, size_t n) {
  const uint64_t bound = n, limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t r;
  do r = splitmix64(state);
  while (r >= limit);
  return static_cast<size_t>(r % bound);
}

double median_inplace(std::vector<double>& v) {
  const size_t n = v.size(), h = n / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  if (n % 2) return v[h];
  const double hi = v[h];
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h));
  return 0.5 * (lo + hi);
}

}  // namespace

uint64_t interval_seed(uint64_t run_seed, const std::string& row_id, size_t pair_index) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the row id
  for (unsigned char c : row_id) h = (h ^ c) * 0x100000001b3ull;
  uint64_t s = run_seed ^ h ^ (static_cast<uint64_t>(pair_index) * 0x9E3779B97F4A7C15ull);
  return splitmix64(s);
}

RatioInterval ratio_interval(const std::vector<std::vector<double>>& gb, const std::vector<std::vector<double>>& gc,
                             int blocks, const IntervalSpec& spec, uint64_t seed) {
  if (gb.size() != gc.size() || gb.empty()) throw std::invalid_argument("ratio_interval: group counts differ or are 0");
  if (blocks < 1) throw std::invalid_argument("ratio_interval: blocks must be >= 1");
  if (!(spec.level > 0 && spec.level < 1) || spec.resamples < 1)
    throw std::invalid_argument("ratio_interval: level must be in (0, 1) and resamples >= 1");
  const size_t G = gb.size(), K = static_cast<size_t>(blocks);
  for (size_t g = 0; g < G; ++g)
    if (gb[g].empty() || gb[g].size() != gc[g].size() || gb[g].size() % K)
      throw std::invalid_argument("ratio_interval: group " + std::to_string(g) + " does not hold " + std::to_string(K) +
                                  " equal blocks of both arms");
  std::vector<double> stats, pb, pc;
  stats.reserve(static_cast<size_t>(spec.resamples));
  uint64_t state = seed;
  for (int r = 0; r < spec.resamples; ++r) {
    pb.clear();
    pc.clear();
    for (size_t i = 0; i < G; ++i) {
      const size_t g = uniform_index(state, G), len = gb[g].size() / K;
      for (size_t j = 0; j < K; ++j) {
        const size_t k = uniform_index(state, K);
        const auto from = static_cast<std::ptrdiff_t>(k * len), to = static_cast<std::ptrdiff_t>((k + 1) * len);
        pb.insert(pb.end(), gb[g].begin() + from, gb[g].begin() + to);
        pc.insert(pc.end(), gc[g].begin() + from, gc[g].begin() + to);
      }
    }
    const double mc = median_inplace(pc);
    if (!(mc > 0)) throw std::invalid_argument("ratio_interval: candidate median is not > 0");
    stats.push_back(median_inplace(pb) / mc);
  }
  std::sort(stats.begin(), stats.end());
  const double a = (1 - spec.level) / 2;
  return {quantile_sorted(stats, a), quantile_sorted(stats, 1 - a)};
}

}  // namespace kgate
