#pragma once
// ag_gemm: the launch descriptor and the overlap schedule, pure functions of it (unit-tested on
// the CPU; kernels/ag_gemm/arms.cpp follows them).
#include <algorithm>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"
#include "kernels/ag_gemm/abi.h"

namespace kgate::ag_gemm {

struct Problem {
  int world_size = 0, rank = 0;
  long long m = 0, n = 0, k = 0;

  static Problem of(const ag_gemm_args& a) { return {a.world_size, a.rank, a.m, a.n, a.k}; }
  long long rows() const { return world_size * m; }  // of the gathered A and of C
  std::string invalid() const {
    if (world_size < 1) return "world_size: must be >= 1, got " + std::to_string(world_size);
    if (rank < 0 || rank >= world_size) return "rank: " + std::to_string(rank) + " is not in [0, world_size)";
    if (m < 1 || n < 1 || k < 1) return "m, n, k: must be >= 1";
    // cuBLAS takes int dimensions and leading dimensions.
    if (rows() > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff)
      return "world_size * m, n, k: must fit in an int (cuBLAS)";
    return "";
  }
  json to_json() const { return {{"world_size", world_size}, {"rank", rank}, {"m", m}, {"n", n}, {"k", k}}; }
};

// The overlap arm's step i (0 .. world_size - 1) works on shard shard_at(i): its own first
// (step 0: already here, its GEMM starts at once), then one shard per step while the next one moves.
// With peer pointers (the copy engine) step i fetches rank (rank + i) % w; through NCCL step i
// sends the own shard to rank (rank + i) % w and receives from rank (rank - i) % w, the pairing
// every rank's step i agrees on.
inline int shard_at(const Problem& p, int step, bool through_nccl) {
  const int w = p.world_size;
  return through_nccl ? ((p.rank - step) % w + w) % w : (p.rank + step) % w;
}
inline std::vector<int> shard_order(const Problem& p, bool through_nccl) {
  std::vector<int> o;
  for (int i = 0; i < p.world_size; ++i) o.push_back(shard_at(p, i, through_nccl));
  return o;
}

// One GEMM of the overlap arm: `count` shards from slot `first` of the gathered A (contiguous
// rows), started once step `after` has arrived (the steps arrive in order on one stream, so the
// group's last step is the one to wait for; step 0, the own shard, is already here).
struct GemmGroup {
  int first = 0, count = 0, after = 0;
  bool operator==(const GemmGroup&) const = default;
};

// The overlap arm's GEMMs: the own shard alone first (nothing to wait for), then the steps
// 1 .. w-1 in groups of 1, 2, 4, ... steps: each group's GEMM takes about as long as all the GEMMs
// before it together, so while it runs the next group's shards (at most twice as many) move, and
// the GEMMs grow instead of running w small ones. A group has at least kMinGroupRows rows (a GEMM
// of fewer fills too few SMs: at w 8 the packed-QKV row's 512-row GEMMs ran at 26 us each, its
// 4096-row GEMM at 110 us; a heuristic, not a fit), and a remainder under that joins the group
// before it. A group whose shards are not contiguous slots (the order wraps past the last rank)
// is split at the wrap.
inline constexpr long long kMinGroupRows = 1536;
inline std::vector<GemmGroup> gemm_groups(const Problem& p, bool through_nccl) {
  std::vector<GemmGroup> g{{p.rank, 1, 0}};
  const int min_steps = static_cast<int>(std::min<long long>(p.world_size, (kMinGroupRows + p.m - 1) / p.m));
  for (int start = 1, size = std::max(1, min_steps); start < p.world_size; start += size, size *= 2) {
    size = std::min(size, p.world_size - start);
    if (p.world_size - (start + size) < min_steps) size = p.world_size - start;  // no runt after this group
    const int end = start + size;                                                // steps [start, end)
    int lo = shard_at(p, start, through_nccl), hi = lo, after = start;
    for (int i = start + 1; i < end; ++i) {
      const int s = shard_at(p, i, through_nccl);
      if (s == hi + 1)
        hi = s;
      else if (s == lo - 1)
        lo = s;
      else {  // the wrap: close the run so far
        g.push_back({lo, hi - lo + 1, after});
        lo = hi = s;
      }
      after = i;
    }
    g.push_back({lo, hi - lo + 1, after});
  }
  return g;
}

// ag_gemm.gather's supports(): with one rank there is nothing to gather.
inline std::string gather_supports(const json& p) {
  return p["world_size"].get<int64_t>() > 1 ? "" : "world_size 1: nothing to gather";
}

}  // namespace kgate::ag_gemm
