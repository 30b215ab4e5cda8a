#include "harness/core/intervals.hpp"

#include <algorithm>

namespace kgate {

uint64_t union_length(std::vector<Interval>& iv) {
  std::sort(iv.begin(), iv.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  uint64_t total = 0, cur_s = 0, cur_e = 0;
  bool open = false;
  for (const auto& x : iv) {
    if (x.end <= x.start) continue;
    if (!open || x.start > cur_e) {
      if (open) total += cur_e - cur_s;
      cur_s = x.start;
      cur_e = x.end;
      open = true;
    } else if (x.end > cur_e) {
      cur_e = x.end;
    }
  }
  if (open) total += cur_e - cur_s;
  return total;
}

std::vector<std::pair<uint64_t, uint64_t>> merged_intervals(std::vector<Interval> iv) {
  std::sort(iv.begin(), iv.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& x : iv) {
    if (x.end <= x.start) continue;
    if (out.empty() || x.start > out.back().second) out.emplace_back(x.start, x.end);
    else out.back().second = std::max(out.back().second, x.end);
  }
  return out;
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
