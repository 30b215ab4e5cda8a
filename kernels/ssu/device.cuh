#pragma once
// Device helpers shared by the ssu GPU kernels. Conventions: references/ssu/ssu.hpp.
// The kernels and helpers sit in an unnamed namespace: launch.cu is their one translation unit,
// and the mangled names CUPTI reports (matched against kernel_names) stay those of earlier builds.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/ssu/abi.h"
#include "kernels/ssu/config.hpp"

namespace kgate::ssu::gpu {

using Args = ssu_args;

namespace {

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T>
__device__ __forceinline__ T from_f(float v);
template <>
__device__ __forceinline__ float from_f<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

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
// The same gate with a 2-ulp division: the IEEE division compiles to a slow-path call in
// every epilogue, which the BF16 mid range measurably pays (kernels/ssu/NOTES.md).
__device__ __forceinline__ float silu_gate_fast(float out, float z) { return out * __fdividef(z, 1.f + __expf(-z)); }

template <class T>
__device__ __forceinline__ float ld_io(const void* p, long long i) {
  return to_f(static_cast<const T*>(p)[i]);
}

// Unpacks a 16-byte chunk into V floats and back.
template <class ST>
struct Chunk;
template <>
struct Chunk<__nv_bfloat16> {
  static constexpr int V = 8;
  __device__ static void unpack(const uint4& r, float* f) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 t = __bfloat1622float2(h[i]);
      f[2 * i] = t.x;
      f[2 * i + 1] = t.y;
    }
  }
  __device__ static uint4 pack(const float* f) {
    uint4 r;
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    return r;
  }
};
template <>
struct Chunk<float> {
  static constexpr int V = 4;
  __device__ static void unpack(const uint4& r, float* f) {
    f[0] = __uint_as_float(r.x);
    f[1] = __uint_as_float(r.y);
    f[2] = __uint_as_float(r.z);
    f[3] = __uint_as_float(r.w);
  }
  __device__ static uint4 pack(const float* f) {
    return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]), __float_as_uint(f[2]), __float_as_uint(f[3]));
  }
};

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
// L2 eviction policies for the cache_hint forms below (fraction 1.0: every access). Lines read
// at evict_last outlive a plain memset flush; kgate resets persisting lines before every sample.
__device__ __forceinline__ uint64_t l2_evict_last() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(p));
  return p;
}
__device__ __forceinline__ uint64_t l2_evict_normal() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;\n" : "=l"(p));
  return p;
}
__device__ __forceinline__ void cp_async16_hint(void* smem, const void* gmem, uint64_t pol) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "l"(pol)
               : "memory");
}
__device__ __forceinline__ uint4 ld16_hint(const void* g, uint64_t pol) {
  uint4 v;
  asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(g), "l"(pol));
  return v;
}
__device__ __forceinline__ void st16_hint(void* g, uint4 v, uint64_t pol) {
  asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;\n" ::"l"(g), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w), "l"(pol)
               : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

}  // namespace
}  // namespace kgate::ssu::gpu
