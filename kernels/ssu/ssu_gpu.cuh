#pragma once
// Device code shared by the ssu GPU arms. Conventions: references/ssu/ssu.hpp.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace kgate::ssu::gpu {

inline constexpr int kP = 64, kN = 128;

// Everything a launch needs; plain data so an external export can take the same struct.
struct Args {
  void* state;            // pool [pool_slots, nheads, 64, 128], state dtype
  const int32_t* slots;   // [batch], -1 = pad
  const void* x;          // [batch, x_stride] io dtype; head h at h*64
  const void* B;          // [batch, bc_stride] io dtype; group g at g*128
  const void* C;
  const void* z;          // like x, or nullptr
  void* out;              // [batch, nheads, 64] io dtype, contiguous
  const void* dt;         // [batch, nheads] weight dtype
  const void* A;          // [nheads] weight dtype
  const void* D;
  const void* dt_bias;
  int batch, nheads, ngroups;
  long long x_stride, bc_stride;
  int state_bf16, io_bf16, weight_bf16, softplus, has_z;
  int diag_live_from = 0;  // tuning branch only: diagnostic kDWave1 skips side loads below this CTA index
};

using GpuFn = void (*)(const Args&, cudaStream_t);

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_f(float v);
template <> __device__ __forceinline__ float from_f<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

__device__ __forceinline__ float load_w(const void* p, long long i, int bf16) {
  return bf16 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]) : static_cast<const float*>(p)[i];
}

// dt' = dt + dt_bias, softplus with threshold 20.
__device__ __forceinline__ float dt_from(const Args& a, float dt, float bias) {
  dt += bias;
  if (a.softplus) dt = dt > 20.f ? dt : log1pf(__expf(dt));
  return dt;
}
__device__ __forceinline__ float dt_eff(const Args& a, int b, int h) {
  return dt_from(a, load_w(a.dt, static_cast<long long>(b) * a.nheads + h, a.weight_bf16),
                 load_w(a.dt_bias, h, a.weight_bf16));
}

__device__ __forceinline__ float silu_gate(float out, float z) { return out * (z / (1.f + __expf(-z))); }

}  // namespace kgate::ssu::gpu
