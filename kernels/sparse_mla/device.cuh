#pragma once
// sparse_mla's device helpers shared by its kernels (baseline.cuh, fast.cuh, fast_wg.cuh, fast_ws.cuh): the cp.async,
// ldmatrix and mma.sync wrappers, the wgmma fences, descriptors and block products, the 128-byte swizzle, and the
// online-softmax steps both mma.sync kernels and both wgmma kernels take. One definition each, so a change to one
// reaches every kernel that uses it (all __forceinline__: each kernel's code is as if written in place).
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/wgmma.cuh"  // the generated wgmma forms

namespace kgate::sparse_mla::gpu {
namespace {

// ---- cp.async, ldmatrix, mma.sync ---------------------------------------------------------------
__device__ __forceinline__ void cp_async16_zfill(void* smem, const void* gmem, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 16 : 0) : "memory");
}
__device__ __forceinline__ void cp_async8_zfill(void* smem, const void* gmem, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(gmem), "r"(valid ? 8 : 0) : "memory");
}
__device__ __forceinline__ void mma_bf16(float* d, const uint32_t* a, uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t& r0, uint32_t& r1, const void* smem_row) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4(uint32_t* r, const void* smem_row) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t* r, const void* smem_row) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem_row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
__device__ __forceinline__ uint32_t u32_at(const __nv_bfloat16* p) { return *reinterpret_cast<const uint32_t*>(p); }

// 16 e4m3 values (one 16-byte piece v of an FP8 row) times their tile's scale sc as 16 BF16, two 16-byte units. The
// caller loads v and sc (with the loads in here, the fast kernel's address arithmetic compiled otherwise).
__device__ __forceinline__ void dequant16(const uint4& v, float sc, uint4 (&o)[2]) {
  const __nv_fp8x2_e4m3* f = reinterpret_cast<const __nv_fp8x2_e4m3*>(&v);
  __nv_bfloat162* ob = reinterpret_cast<__nv_bfloat162*>(o);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float2 x = static_cast<float2>(f[e]);
    ob[e] = __floats2bfloat162_rn(x.x * sc, x.y * sc);
  }
}

// Q rows kRows hg + r (r < kRows) of token t into shared rows of kStride BF16 (rows past the head count zero), by
// threads first, first + kStep, ...: one 16-byte cp.async a piece (the caller commits). The head is computed in the
// loop, as the kernels wrote it: computed before it, the fast kernel's SASS came out scheduled otherwise.
template <int kRows, int kStride, int kStep>
__device__ __forceinline__ void load_q_rows(__nv_bfloat16* sq, const sparse_mla_args& a, int t, int hg, int first) {
  for (int i = first; i < kRows * 64; i += kStep) {
    const int r = i / 64, piece = i % 64, h = hg * kRows + r;
    const __nv_bfloat16* src = static_cast<const __nv_bfloat16*>(a.q) +
                               (static_cast<long long>(t) * a.heads + (h < a.heads ? h : 0)) * 512 + piece * 8;
    cp_async16_zfill(sq + r * kStride + piece * 8, src, h < a.heads);
  }
}

// ---- the mma.sync kernels' online softmax (8 threads a head row) --------------------------------
// The row maximum over the row's 8 threads, then its new running max; the running max m_run[row] before it in m_old.
__device__ __forceinline__ float row8_max(float mx, const float* m_run, int row, float& m_old) {
#pragma unroll
  for (int o = 4; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  m_old = m_run[row];
  return fmaxf(m_old, mx);
}
// The row's sum over its 8 threads, then (thread part 0) the rescale factor of the row's O, l and m updated.
__device__ __forceinline__ void row8_update(float sum, float m_old, float m_new, int row, int part, float* m_run,
                                            float* l_run, float* alpha) {
#pragma unroll
  for (int o = 4; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  __syncwarp();
  if (part == 0) {
    const float al = m_new == -INFINITY ? 1.f : exp2f(m_old - m_new);
    alpha[row] = al;
    l_run[row] = l_run[row] * al + sum;
    m_run[row] = m_new;
  }
}
// A warp's O fragments (16 n tiles of m16n8: rows g and g + 8) times their rows' factors.
__device__ __forceinline__ void scale_acc(float (&acc)[16][4], float al0, float al1) {
#pragma unroll
  for (int n = 0; n < 16; ++n) {
    acc[n][0] *= al0;
    acc[n][1] *= al0;
    acc[n][2] *= al1;
    acc[n][3] *= al1;
  }
}

// ---- wgmma: shared memory, fences, descriptors ---------------------------------------------------
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// A shared-memory matrix descriptor, 128-byte swizzle; lbo and sbo in bytes.
__device__ __forceinline__ uint64_t wg_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(lbo >> 4) << 16) |
         (static_cast<uint64_t>(sbo >> 4) << 32) | (1ull << 62);
}
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); }
// Generic-proxy writes to shared memory (stores, cp.async) made visible to wgmma's async proxy.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
// Keeps the compiler from moving accumulator reads or writes across the asynchronous wgmma.
template <int N>
__device__ __forceinline__ void fence_regs(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// 2^x by the MUFU (ex2.approx.ftz: ~2 ulp; exp2(-inf) = 0).
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
// Byte offset of (row, 16-byte unit u of 64) in a swizzled 64-row tile.
__device__ __forceinline__ int sw_off(int row, int u) {
  return (u >> 3) * 8192 + row * 128 + (((u & 7) ^ (row & 7)) << 4);
}
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}
// Q rows 64 hg .. 64 hg + 63 of token t into the swizzled tile sq (rows past the head count zero), by threads first,
// first + step, ...: one 16-byte cp.async a unit (the caller commits).
__device__ __forceinline__ void load_q_tile(unsigned char* sq, const sparse_mla_args& a, int t, int hg, int first,
                                            int step) {
  for (int i = first; i < 64 * 64; i += step) {
    const int r = i >> 6, u = i & 63, h = hg * 64 + r;
    const __nv_bfloat16* src = static_cast<const __nv_bfloat16*>(a.q) +
                               (static_cast<long long>(t) * a.heads + (h < a.heads ? h : 0)) * 512 + u * 8;
    cp_async16_zfill(sq + sw_off(r, u), src, h < a.heads);
  }
}

// ---- wgmma: a block's products ---------------------------------------------------------------------
// S = Q K^T over all 512 dims (32 k-steps; the descriptors move by the byte offset / 16), waited for: N = 16
// accumulators a thread is m64n32 (32 columns), N = 32 m64n64 (64 columns).
template <int N>
__device__ __forceinline__ void wg_qk(float (&s)[N], uint64_t dq, uint64_t dk) {
  wg_fence();
#pragma unroll
  for (int kk = 0; kk < 32; ++kk) {
    const uint32_t koff = (kk >> 2) * 8192 + (kk & 3) * 32;
    if constexpr (N == 16)
      wgmma_m64n32k16(s, dq + (koff >> 4), dk + (koff >> 4), kk > 0);
    else
      wgmma_m64n64k16(s, dq + (koff >> 4), dk + (koff >> 4), kk > 0);
  }
  wg_commit();
  wg_wait0();
  fence_regs(s);
}
// O[:, 256 columns] += P V with P (64 x 64) from shared memory (dp) and V the block's K tile read N-major (dv),
// waited for.
__device__ __forceinline__ void wg_pv(float (&o)[128], uint64_t dp, uint64_t dv) {
  wg_fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) wgmma_m64n256k16_tb(o, dp + kk * 2, dv + kk * 128, 1);
  wg_commit();
  wg_wait0();
  fence_regs(o);
}

// ---- wgmma: the online softmax on a warpgroup's accumulator rows r0 (s[4n], s[4n + 1]) and r1 (s[4n + 2], s[4n + 3])
// Masks the columns without a row (cols[8n + 2tq + e] < 0) to -inf, scales the rest to base 2, and folds each row's
// maximum over the quad into mx0, mx1 (the caller's -inf: set there, the kernels' SASS stays as written in place).
template <int N>
__device__ __forceinline__ void mask_rows_max(float (&s)[N], const int* cols, int tq, float scale_log2, float& mx0,
                                              float& mx1) {
#pragma unroll
  for (int n = 0; n < N / 4; ++n)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const bool valid = cols[8 * n + 2 * tq + e] >= 0;
      s[4 * n + e] = valid ? s[4 * n + e] * scale_log2 : -INFINITY;
      s[4 * n + 2 + e] = valid ? s[4 * n + 2 + e] * scale_log2 : -INFINITY;
      mx0 = fmaxf(mx0, s[4 * n + e]);
      mx1 = fmaxf(mx1, s[4 * n + 2 + e]);
    }
#pragma unroll
  for (int x = 1; x <= 2; x <<= 1) {
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, x));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, x));
  }
}
// The rows' new maxima n0, n1: what p subtracts (z: a row with no valid column yet subtracts 0 instead of -inf, so
// its p and alpha are exp2(-inf) = 0 and no branch is needed) and O's rescale factors from the old maxima m0, m1.
struct RowStep {
  float z0, z1, al0, al1;
};
__device__ __forceinline__ RowStep row_step(float m0, float m1, float n0, float n1) {
  RowStep r;
  r.z0 = n0 == -INFINITY ? 0.f : n0;
  r.z1 = n1 == -INFINITY ? 0.f : n1;
  r.al0 = ex2(m0 - r.z0);
  r.al1 = ex2(m1 - r.z1);
  return r;
}
// Chunk n's p = 2^(s - z) of both rows, added to the row sums: p00, p01 (row r0), p10, p11 (row r1).
struct PChunk {
  float p00, p01, p10, p11;
};
template <int N>
__device__ __forceinline__ PChunk p_chunk(const float (&s)[N], int n, const RowStep& z, float& sum0, float& sum1) {
  PChunk c;
  c.p00 = ex2(s[4 * n] - z.z0);
  c.p01 = ex2(s[4 * n + 1] - z.z0);
  c.p10 = ex2(s[4 * n + 2] - z.z1);
  c.p11 = ex2(s[4 * n + 3] - z.z1);
  sum0 += c.p00 + c.p01;
  sum1 += c.p10 + c.p11;
  return c;
}
// O (a warpgroup's m64n256 accumulators) times the rows' factors, skipped where no row of the warp moved its max.
__device__ __forceinline__ void rescale_o(float (&o)[128], float al0, float al1) {
  if (!__all_sync(0xffffffffu, al0 == 1.f && al1 == 1.f)) {
#pragma unroll
    for (int n = 0; n < 32; ++n) {
      o[4 * n] *= al0;
      o[4 * n + 1] *= al0;
      o[4 * n + 2] *= al1;
      o[4 * n + 3] *= al1;
    }
  }
}
// The rows' partial sums over the quad (by value: taken by reference, the lockstep kernel's SASS came out otherwise).
__device__ __forceinline__ float2 quad_sum(float l0, float l1) {
#pragma unroll
  for (int x = 1; x <= 2; x <<= 1) {
    l0 += __shfl_xor_sync(0xffffffffu, l0, x);
    l1 += __shfl_xor_sync(0xffffffffu, l1, x);
  }
  return make_float2(l0, l1);
}

}  // namespace
}  // namespace kgate::sparse_mla::gpu
