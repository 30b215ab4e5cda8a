#pragma once
// ssu: Mamba2 selective_state_update, single-token decode. Conventions (the CPU reference in
// ssu_ref.cpp is the oracle; every implementation follows these exactly):
//  - headdim P = 64, dstate N = 128; head h uses group g(h) = h / (nheads / ngroups).
//  - dt' = dt[b,h] + dt_bias[h]; if softplus: dt' = dt' > 20 ? dt' : log1p(exp(dt')).
//    dt, dt_bias, A, D are per head (the serving layout broadcasts them over headdim and
//    dstate with stride 0; we store the one value per head that those views hold).
//  - dA = exp(A[h] * dt').
//  - state[d,n] <- state[d,n] * dA + dt' * B[b,g,n] * x[b,h,d]      (fp32 math)
//  - out[b,h,d] = sum_n state[d,n] * C[b,g,n] + D[h] * x[b,h,d];  if z: out *= z * sigmoid(z).
//  - The state pool is [pool_slots, nheads, P, N] in state_dtype (bf16 or fp32), reached through
//    an int32 slot table slots[b]. The updated state is rounded to state_dtype and stored back.
//  - Pad slot (slots[b] == -1): the pool is left untouched (bit-identical) and out[b] is
//    computed as if the state were zero: out = sum_n (dt' B x)[d,n] C[n] + D x (then z gate).
//  - x, B, C, z (io_dtype: bf16 or fp32) are views with a batch stride of (row + fused_extra)
//    elements: fused_extra > 0 models a fused projection buffer. out is [batch, nheads, P],
//    contiguous, in io_dtype.
//  - Weights A, D, dt_bias, and dt are in weight_dtype (bf16 or fp32).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/records.hpp"

namespace kgate::ssu {

inline constexpr int kP = 64;
inline constexpr int kN = 128;

struct Params {
  int64_t batch, nheads, ngroups, pool_slots, pad_slots, fused_extra;
  bool state_bf16, io_bf16, weight_bf16, softplus, has_z;
  static Params from_json(const json& p);
  int64_t x_stride() const { return nheads * kP + fused_extra; }
  int64_t bc_stride() const { return ngroups * kN + fused_extra; }
};

// Host copy of one problem. Values are held as float but already rounded to their declared
// dtype, so the device upload is exact.
struct HostProblem {
  Params p;
  std::vector<float> state;          // [pool_slots, nheads, P, N]
  std::vector<int32_t> slots;        // [batch]
  std::vector<float> x, B, C, z;     // strided views: x[b*x_stride + h*P + d], B[b*bc_stride + g*N + n]
  std::vector<float> dt;             // [batch, nheads]
  std::vector<float> A, D, dt_bias;  // [nheads]
};

// The pool's value i: the pool is filled in 2^20-value chunks, chunk c from its own stream
// (seeded seed ^ (0xA24BAED4963EE407 * (c + 1))), uniform in [-2, 2), rounded to the state dtype.
// A function of (seed, i) alone, on the host and (under nvcc) on the device: fill_pool_device
// (ssu_ref_gpu.hpp) writes the same bits.
inline constexpr uint64_t kPoolChunk = uint64_t{1} << 20;
KGATE_HD inline float pool_value(uint64_t seed, uint64_t i, bool state_bf16) {
  const uint64_t stream = seed ^ (0xA24BAED4963EE407ull * ((i / kPoolChunk) + 1));
  const float v = uniform_of(splitmix_mix(stream + (i % kPoolChunk + 1) * kGolden), -2.0f, 2.0f);
  return state_bf16 ? round_bf16(v) : v;
}
inline int64_t pool_values(const Params& p) { return p.pool_slots * p.nheads * kP * kN; }

// host_pool = false leaves state empty (the GPU context then fills the pool on the device).
HostProblem make_problem(const Params& p, uint64_t seed, bool host_pool = true);

struct Reference {
  std::vector<double> out;    // [batch, nheads, P], rounded to io dtype
  std::vector<double> state;  // full pool after the update, rounded to state dtype
};
Reference reference(const HostProblem& hp);

// Checks out (row tolerance) and the whole pool (state-dtype tolerance, unowned entries exact).
Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& state,
                          const std::vector<float>& out, const Tolerance& tol);

// A row's default tolerance for out, by its io dtype (a case row may set its own).
Tolerance tolerance(const json& params);

// The check every ssu context applies to an arm's outputs, whatever its role: a floor arm
// (it moves the state bytes and computes nothing) must leave the pool bit-identical; every
// other arm is compared with the oracle. `ref` is called only when the oracle is needed.
Correctness check_arm(const Implementation& impl, const HostProblem& hp, const std::function<const Reference&()>& ref,
                      const std::vector<float>& state, const std::vector<float>& out, const Tolerance& tol);

}  // namespace kgate::ssu
