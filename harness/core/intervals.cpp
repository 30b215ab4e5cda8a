#include "harness/core/intervals.hpp"

#include <algorithm>

namespace kgate {

namespace {

bool by_start(const Interval& a, const Interval& b) { return a.start < b.start; }

// The union of intervals sorted by start, as disjoint [start, end) pairs; empty ones dropped.
std::vector<std::pair<uint64_t, uint64_t>> merge_sorted(const std::vector<Interval>& iv) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& x : iv) {
    if (x.end <= x.start) continue;
    if (out.empty() || x.start > out.back().second)
      out.emplace_back(x.start, x.end);
    else
      out.back().second = std::max(out.back().second, x.end);
  }
  return out;
}

}  // namespace

uint64_t union_length(std::vector<Interval>& iv) {
  std::sort(iv.begin(), iv.end(), by_start);
  uint64_t total = 0;
  for (const auto& [s, e] : merge_sorted(iv)) total += e - s;
  return total;
}

std::vector<std::pair<uint64_t, uint64_t>> merged_intervals(std::vector<Interval> iv) {
  std::sort(iv.begin(), iv.end(), by_start);
  return merge_sorted(iv);
}

uint64_t span_length(const std::vector<Interval>& iv) {
  if (iv.empty()) return 0;
  uint64_t s = UINT64_MAX, e = 0;
  for (const auto& x : iv) {
    s = std::min(s, x.start);
    e = std::max(e, x.end);
  }
  return e > s ? e - s : 0;
}

}  // namespace kgate
