#pragma once
// ag_gemm: tensor-parallel all-gather + GEMM. Conventions (the CPU reference is the oracle):
//  - world_size ranks; rank r holds A_r [m, K] BF16 (m = local M) and the same B [K, N] BF16
//    (its column shard of the full weight).
//  - Every rank computes C = allgather(A_0 .. A_{w-1}) [w*m, K] x B -> [w*m, N] BF16, fp32
//    accumulation; the gathered order is rank order (rows r*m .. r*m+m-1 come from rank r).
//  - On the CPU backend the ranks are simulated in one process (A_r held side by side).
#include <cstdint>
#include <vector>

#include "harness/core/jcs.hpp"

namespace kgate::ag_gemm {

struct Params {
  int64_t world_size, m, n, k;
  static Params from_json(const json& p);
  int64_t rows() const { return world_size * m; }
};

struct HostProblem {
  Params p;
  std::vector<std::vector<float>> A;  // per rank [m, K], BF16-exact
  std::vector<float> B;               // [K, N], BF16-exact, row-major
};

HostProblem make_problem(const Params& p, uint64_t seed);
std::vector<double> reference(const HostProblem& hp);  // [w*m, N], rounded to BF16

}  // namespace kgate::ag_gemm
