#pragma once
// ag_gemm: the launch descriptor and the overlap schedule, pure functions of it (unit-tested on
// the CPU; kernels/ag_gemm/arms.cpp follows them).
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
    if (rows() > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff) return "world_size * m, n, k: must fit in an int (cuBLAS)";
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

}  // namespace kgate::ag_gemm
