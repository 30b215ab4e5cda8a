#pragma once
// ag_gemm: tensor-parallel all-gather + GEMM. Conventions (the CPU reference is the oracle):
//  - world_size ranks; rank r holds A_r [m, K] BF16 (m = local M) and the same B [K, N] BF16
//    (its column shard of the full weight), both row-major.
//  - Every rank computes C = allgather(A_0 .. A_{w-1}) [w*m, K] x B -> [w*m, N], fp32
//    accumulation; the gathered order is rank order (rows r*m .. r*m+m-1 come from rank r).
//  - dtype: A, B and C all BF16, or all FP16 (the same input values: exact in both; C rounded to
//    the dtype).
//  - Inputs are a function of (seed, rank, element) alone (a_value, b_value), on the host and
//    (under nvcc) on the device: a GPU context writes its shards on the device, and every rank
//    can make every other rank's shard (the GPU reference of a rank needs the whole gathered A).
//  - On the CPU backend the ranks are simulated in one process (A_r held side by side).
#include <cstdint>
#include <vector>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/numeric.hpp"

namespace kgate::ag_gemm {

struct Params {
  int64_t world_size, m, n, k;
  bool fp16 = false;  // dtype "fp16" (default "bf16")
  static Params from_json(const json& p);
  int64_t rows() const { return world_size * m; }
};

// A_r[i] (i = row * k + col of rank r's shard): uniform in [-2, 2); B[i] (i = row * n + col):
// uniform in [-1/4, 1/4). Each element from its own splitmix output (rank r's stream seeded
// seed ^ (0xD1B54A32D192ED03 * (r + 1)), B's seed ^ 0x8CB92BA72F3D8DD7), rounded to BF16 and
// flushed to 0 below 2^-14 in magnitude: exact in BF16 and in FP16 (8 significant bits, no FP16
// subnormal), so both dtypes multiply the same numbers.
KGATE_HD inline float exact_in_both(float v) {
  const float b = round_bf16(v);
  return (b < 0x1p-14f && b > -0x1p-14f) ? 0.0f : b;
}
KGATE_HD inline float a_value(uint64_t seed, int64_t rank, uint64_t i) {
  const uint64_t stream = seed ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(rank + 1));
  return exact_in_both(uniform_of(splitmix_mix(stream + (i + 1) * kGolden), -2.0f, 2.0f));
}
KGATE_HD inline float b_value(uint64_t seed, uint64_t i) {
  return exact_in_both(uniform_of(splitmix_mix((seed ^ 0x8CB92BA72F3D8DD7ull) + (i + 1) * kGolden), -0.25f, 0.25f));
}

// An fp32 result rounded to C's dtype (round to nearest even), as a float.
float round_out(float v, bool fp16);

struct HostProblem {
  Params p;
  std::vector<std::vector<float>> A;  // per rank [m, K], BF16-exact
  std::vector<float> B;               // [K, N], BF16-exact, row-major
};

HostProblem make_problem(const Params& p, uint64_t seed);
std::vector<double> reference(const HostProblem& hp);  // [w*m, N], rounded to C's dtype
// A row's default tolerance (a case row may set its own).
Tolerance tolerance(const json& params);

}  // namespace kgate::ag_gemm
