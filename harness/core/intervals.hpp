#pragma once
// The length of the union of time intervals: overlapping work counts once, gaps between
// launches are excluded. Intervals may come from several devices on one clock.
#include <cstdint>
#include <utility>
#include <vector>

namespace kgate {

struct Interval {
  uint64_t start, end;  // ns, end >= start
  int device = 0;
};

// Sorts `iv` in place. Empty intervals add nothing.
uint64_t union_length(std::vector<Interval>& iv);
// The union as disjoint [start, end) pairs, sorted; empty intervals dropped.
std::vector<std::pair<uint64_t, uint64_t>> merged_intervals(std::vector<Interval> iv);
// Span from the first start to the last end (0 for none): union + gaps.
uint64_t span_length(const std::vector<Interval>& iv);

}  // namespace kgate
