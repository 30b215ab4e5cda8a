#include "harness/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

PairStats pair_stats(const std::vector<std::vector<double>>& gb,
                     const std::vector<std::vector<double>>& gc) {
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

}  // namespace kgate
