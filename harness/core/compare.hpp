#pragma once
// Element-wise comparison of an output against its reference, on every core. Accessors return
// doubles by index, so callers compare float or bf16-decoded buffers without copying them.
// The result is the serial scan's, exactly: counts are sums, maxima are maxima, and the worst
// element is the first index of the largest excess (a chunk's candidate replaces the running
// one only when strictly larger, chunks merged in index order).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "harness/core/family.hpp"
#include "harness/core/parallel.hpp"
#include "harness/core/records.hpp"

namespace kgate {

template <class Out, class Ref, class Unwritten>
Correctness compare_elements(size_t n, Out out, Ref ref, Unwritten unwritten, const Tolerance& tol,
                             const std::function<std::string(size_t)>& coords, unsigned threads = 0) {
  struct Part {
    int64_t unwritten = 0, nonfinite = 0, mismatches = 0;
    double max_abs = 0, max_rel = 0, worst_excess = -1;
    size_t worst_i = 0;
  };
  auto scan = [&](size_t lo, size_t hi, Part& p) {
    for (size_t i = lo; i < hi; ++i) {
      if (unwritten(i)) {
        ++p.unwritten;
        continue;
      }
      const double o = out(i), r = ref(i);
      if (!std::isfinite(o) || !std::isfinite(r)) {
        // A non-finite reference (e.g. lse = -inf for an empty row) must be matched exactly.
        if (!(o == r)) {
          ++p.nonfinite;
          if (p.worst_excess < INFINITY) {
            p.worst_excess = INFINITY;
            p.worst_i = i;
          }
        }
        continue;
      }
      const double err = std::fabs(o - r), bound = tol.atol + tol.rtol * std::fabs(r);
      p.max_abs = std::max(p.max_abs, err);
      p.max_rel = std::max(p.max_rel, err / std::max(std::fabs(r), tol.atol > 0 ? tol.atol : 1e-30));
      if (err > bound) ++p.mismatches;
      if (err - bound > p.worst_excess) {
        p.worst_excess = err - bound;
        p.worst_i = i;
      }
    }
  };
  constexpr size_t kMinChunk = size_t{1} << 20;
  unsigned nt = threads ? threads : hardware_threads();
  nt = static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(nt, (n + kMinChunk - 1) / kMinChunk)));
  std::vector<Part> parts(nt);
  const size_t step = (n + nt - 1) / nt;
  on_threads(nt, [&](unsigned t) { scan(std::min(n, t * step), std::min(n, (t + 1) * step), parts[t]); });
  Correctness c;
  c.elements = static_cast<int64_t>(n);
  double worst_excess = -1;
  size_t worst_i = 0;
  for (const Part& p : parts) {
    c.unwritten += p.unwritten;
    c.nonfinite += p.nonfinite;
    c.mismatches += p.mismatches;
    c.max_abs_err = std::max(c.max_abs_err, p.max_abs);
    c.max_rel_err = std::max(c.max_rel_err, p.max_rel);
    if (p.worst_excess > worst_excess) {
      worst_excess = p.worst_excess;
      worst_i = p.worst_i;
    }
  }
  if (n) {
    c.worst = coords(worst_i);
    c.worst_out = std::isfinite(out(worst_i)) ? out(worst_i) : 0;
    c.worst_ref = std::isfinite(ref(worst_i)) ? ref(worst_i) : 0;
  }
  c.passed = c.mismatches == 0 && c.nonfinite == 0 && c.unwritten == 0 && n;
  if (!n) c.note = "no output elements compared";
  return c;
}

}  // namespace kgate
