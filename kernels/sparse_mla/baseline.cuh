#pragma once
// sparse_mla.baseline: the public split-KV decode design at its usual tuning. A CTA of 4 warps
// owns one token, 16 query heads (one mma M tile) and a run of 64-column KV blocks: per block it
// gathers the 64 indexed rows into shared memory (BF16 by cp.async; FP8 dequantized to BF16
// there), S = Q K^T on tensor cores (mma.sync m16n8k16, each warp 16 heads x 16 columns), an
// online softmax per head row, O += P V on tensor cores (each warp 16 heads x 128 output dims);
// the split's (m, l, O) go to a workspace and a combine kernel merges the splits, applies the
// sink, writes out (BF16) and lse.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/config.hpp"  // kBlk, kHeadsPerCta
#include "kernels/sparse_mla/device.cuh"
#include "kernels/sparse_mla/model1.cuh"

namespace kgate::sparse_mla::gpu {
namespace {

constexpr int kBaseThreads = 128;  // 4 warps
constexpr int kQStride = 512 + 8;  // BF16 elements per shared row (padding against bank conflicts)
constexpr int kKStride = 512 + 8;
constexpr int kPStride = kBlk + 8;
constexpr int kBaseSmem = (kHeadsPerCta * kQStride + kBlk * kKStride + kHeadsPerCta * kPStride) * 2 +
                          (kHeadsPerCta * kBlk + 3 * kHeadsPerCta + kBlk) * 4;

// Column c of token t: its row (-1: none) and table; inactive columns count as none.
__device__ __forceinline__ int32_t column_row(const sparse_mla_args& a, int t, int c, long long active, bool& comp) {
  comp = c >= 128;
  if (c >= active) return -1;
  return comp ? a.compressed_indices[static_cast<long long>(t) * a.compressed_index_stride + (c - 128)]
              : a.swa_indices[static_cast<long long>(t) * a.swa_index_stride + c];
}

// Partials: ws_o [T, head groups, splits, 16, 512] fp32 (unnormalized), ws_ml [.., 16, 2] (m, l).
__global__ void __launch_bounds__(kBaseThreads)
    sparse_mla_baseline_kernel(sparse_mla_args a, int splits, int blocks_per_split, float* ws_o, float* ws_ml) {
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16* sq = reinterpret_cast<__nv_bfloat16*>(smem);
  __nv_bfloat16* sk = sq + kHeadsPerCta * kQStride;
  __nv_bfloat16* sp = sk + kBlk * kKStride;
  float* ss = reinterpret_cast<float*>(sp + kHeadsPerCta * kPStride);  // [16][64] scores
  float* m_run = ss + kHeadsPerCta * kBlk;
  float* l_run = m_run + kHeadsPerCta;
  float* alpha = l_run + kHeadsPerCta;
  int* svalid = reinterpret_cast<int*>(alpha + kHeadsPerCta);  // [64]: the block's column has a row
  const int split = blockIdx.x, hg = blockIdx.y, t = blockIdx.z;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, tq = lane & 3;
  const int W = 128 + a.topk, nblocks = (W + kBlk - 1) / kBlk;
  long long active = static_cast<long long>(a.lens[t]) + a.lens_offset;
  active = active < 0 ? 0 : (active > W ? W : active);
  const int b0 = split * blocks_per_split, b1 = min(nblocks, b0 + blocks_per_split);
  // Q tile: 16 heads x 512 (rows beyond the head count zero).
  load_q_rows<kHeadsPerCta, kQStride, kBaseThreads>(sq, a, t, hg, threadIdx.x);
  if (threadIdx.x < kHeadsPerCta) {
    m_run[threadIdx.x] = -INFINITY;
    l_run[threadIdx.x] = 0.f;
  }
  float acc[16][4];
#pragma unroll
  for (int n = 0; n < 16; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;
  const float scale_log2 = a.sm_scale * 1.4426950408889634f;
  for (int blk = b0; blk < b1; ++blk) {
    __syncthreads();  // the previous block's K and P are consumed
    // Gather: 64 rows (invalid or inactive rows zero).
    if (!a.kv_fp8) {
      for (int i = threadIdx.x; i < kBlk * 64; i += kBaseThreads) {
        const int j = i / 64, piece = i % 64, c = blk * kBlk + j;
        bool comp;
        const int32_t r = c < W ? column_row(a, t, c, active, comp) : -1;
        const __nv_bfloat16* tab = static_cast<const __nv_bfloat16*>(comp ? a.compressed_kv : a.swa_kv);
        if (piece == 0) svalid[j] = r >= 0;
        cp_async16_zfill(sk + j * kKStride + piece * 8, tab + (r < 0 ? 0 : static_cast<long long>(r)) * 512 + piece * 8,
                         r >= 0);
      }
    } else {
      for (int i = threadIdx.x; i < kBlk * 36; i += kBaseThreads) {  // 28 e4m3 pieces + 8 BF16 pieces of 16 B
        const int j = i / 36, piece = i % 36, c = blk * kBlk + j;
        bool comp;
        const int32_t r = c < W ? column_row(a, t, c, active, comp) : -1;
        __nv_bfloat16* dst = sk + j * kKStride;
        if (piece == 0) svalid[j] = r >= 0;
        if (r < 0) {
          const int e0 = piece < 28 ? piece * 16 : 448 + (piece - 28) * 8;
          for (int e = 0; e < (piece < 28 ? 16 : 8); ++e) dst[e0 + e] = __float2bfloat16(0.f);
          continue;
        }
        const Model1Row row = model1_row(comp ? a.compressed_kv : a.swa_kv, r, a.page_block);
        const unsigned char* data = row.data;
        if (piece < 28) {
          const unsigned char* scales = row.scales;
          const float sc = ldexpf(1.f, static_cast<int>(scales[piece / 4]) - 127);
          const uint4 v = *reinterpret_cast<const uint4*>(data + piece * 16);
          const __nv_fp8x2_e4m3* f = reinterpret_cast<const __nv_fp8x2_e4m3*>(&v);
#pragma unroll
          for (int e = 0; e < 8; ++e) {
            const float2 x = static_cast<float2>(f[e]);
            reinterpret_cast<__nv_bfloat162*>(dst + piece * 16)[e] = __floats2bfloat162_rn(x.x * sc, x.y * sc);
          }
        } else {
          *reinterpret_cast<uint4*>(dst + 448 + (piece - 28) * 8) =
              *reinterpret_cast<const uint4*>(data + 448 + (piece - 28) * 16);
        }
      }
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    // S = Q K^T: warp w owns columns 16w .. 16w + 15 (two n tiles of 8).
    float s[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
#pragma unroll 4
    for (int kk = 0; kk < 32; ++kk) {
      const __nv_bfloat16* q0 = sq + g * kQStride + kk * 16 + 2 * tq;
      const uint32_t af[4] = {u32_at(q0), u32_at(q0 + 8 * kQStride), u32_at(q0 + 8), u32_at(q0 + 8 * kQStride + 8)};
#pragma unroll
      for (int n = 0; n < 2; ++n) {
        const __nv_bfloat16* k0 = sk + (warp * 16 + n * 8 + g) * kKStride + kk * 16 + 2 * tq;
        mma_bf16(s[n], af, u32_at(k0), u32_at(k0 + 8));
      }
    }
    // Scores (base-2 scaled, masked) to shared memory.
#pragma unroll
    for (int n = 0; n < 2; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int row = g + (e >= 2 ? 8 : 0), col = warp * 16 + n * 8 + 2 * tq + (e & 1);
        ss[row * kBlk + col] = svalid[col] ? s[n][e] * scale_log2 : -INFINITY;
      }
    __syncthreads();
    // Online softmax: 8 threads per head row, 8 columns each.
    {
      const int row = threadIdx.x >> 3, part = threadIdx.x & 7;
      float mx = -INFINITY;
#pragma unroll
      for (int e = 0; e < 8; ++e) mx = fmaxf(mx, ss[row * kBlk + part * 8 + e]);
      float m_old;
      const float m_new = row8_max(mx, m_run, row, m_old);
      float sum = 0.f;
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const float p = m_new == -INFINITY ? 0.f : exp2f(ss[row * kBlk + part * 8 + e] - m_new);
        sum += p;
        sp[row * kPStride + part * 8 + e] = __float2bfloat16(p);
      }
      row8_update(sum, m_old, m_new, row, part, m_run, l_run, alpha);
    }
    __syncthreads();
    // O = O * alpha + P V: warp w owns output dims 128w .. 128w + 127 (16 n tiles).
    const float al0 = alpha[g], al1 = alpha[g + 8];
    scale_acc(acc, al0, al1);
#pragma unroll
    for (int kk = 0; kk < kBlk / 16; ++kk) {
      const __nv_bfloat16* p0 = sp + g * kPStride + kk * 16 + 2 * tq;
      const uint32_t af[4] = {u32_at(p0), u32_at(p0 + 8 * kPStride), u32_at(p0 + 8), u32_at(p0 + 8 * kPStride + 8)};
#pragma unroll
      for (int n = 0; n < 16; ++n) {
        uint32_t v0, v1;
        ldmatrix_x2_trans(v0, v1, sk + (kk * 16 + (lane & 15)) * kKStride + warp * 128 + n * 8);
        mma_bf16(acc[n], af, v0, v1);
      }
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");  // an empty split's Q copy
  __syncthreads();
  // The split's partials.
  const long long part_base = ((static_cast<long long>(t) * gridDim.y + hg) * splits + split) * kHeadsPerCta;
#pragma unroll
  for (int n = 0; n < 16; ++n) {
    const int col = warp * 128 + n * 8 + 2 * tq;
    *reinterpret_cast<float2*>(ws_o + (part_base + g) * 512 + col) = make_float2(acc[n][0], acc[n][1]);
    *reinterpret_cast<float2*>(ws_o + (part_base + g + 8) * 512 + col) = make_float2(acc[n][2], acc[n][3]);
  }
  if (threadIdx.x < kHeadsPerCta) {
    ws_ml[(part_base + threadIdx.x) * 2] = m_run[threadIdx.x];
    ws_ml[(part_base + threadIdx.x) * 2 + 1] = l_run[threadIdx.x];
  }
}

// Combine: one CTA of 128 threads per (token, head): merges the splits, the sink; out and lse.
__global__ void __launch_bounds__(128)
    sparse_mla_combine_kernel(sparse_mla_args a, int splits, const float* ws_o, const float* ws_ml) {
  const int h = blockIdx.x, t = blockIdx.y, hg = h / kHeadsPerCta, r = h % kHeadsPerCta;
  const int groups = (a.heads + kHeadsPerCta - 1) / kHeadsPerCta;
  const long long base = ((static_cast<long long>(t) * groups + hg) * splits) * kHeadsPerCta + r;
  float M = -INFINITY;
  for (int s = 0; s < splits; ++s) M = fmaxf(M, ws_ml[(base + s * kHeadsPerCta) * 2]);
  float L = 0.f;
  for (int s = 0; s < splits; ++s) {
    const float m = ws_ml[(base + s * kHeadsPerCta) * 2], l = ws_ml[(base + s * kHeadsPerCta) * 2 + 1];
    if (m != -INFINITY) L += l * exp2f(m - M);
  }
  const long long o = (static_cast<long long>(t) * a.heads + h) * 512;
  __nv_bfloat16* out = static_cast<__nv_bfloat16*>(a.out) + o;
  if (L == 0.f) {
    for (int i = threadIdx.x; i < 512; i += 128) out[i] = __float2bfloat16(0.f);
    if (threadIdx.x == 0) a.lse[static_cast<long long>(t) * a.heads + h] = -INFINITY;
    return;
  }
  const float lse = (M + log2f(L)) * 0.6931471805599453f;  // natural log
  const float sink = a.sink ? 1.f / (1.f + expf(a.sink[h] - lse)) : 1.f;
  for (int i = threadIdx.x; i < 512; i += 128) {
    float v = 0.f;
    for (int s = 0; s < splits; ++s) {
      const float m = ws_ml[(base + s * kHeadsPerCta) * 2];
      if (m != -INFINITY) v += ws_o[(base + s * kHeadsPerCta) * 512 + i] * exp2f(m - M);
    }
    out[i] = __float2bfloat16(v / L * sink);
  }
  if (threadIdx.x == 0) a.lse[static_cast<long long>(t) * a.heads + h] = lse;
}

}  // namespace
}  // namespace kgate::sparse_mla::gpu
