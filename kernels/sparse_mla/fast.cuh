#pragma once
// sparse_mla.fast: the candidate. A CTA owns one token, up to 64 query heads (HT tiles of 16,
// 4 warps per tile) and a split of 32-column KV blocks, so the heads of a token share each
// gathered row instead of gathering it once per 16 heads. The split's index columns go to
// shared memory first; then the gather of block k + 1 (cp.async: BF16 rows straight into the
// K buffer, FP8 rows raw into a staging buffer, dequantized to BF16 at the top of the next step)
// runs while block k is computed: S = Q K^T (mma.sync m16n8k16, warp: 16 heads x 32 columns x 128
// dims, the four dim quarters summed in shared memory),
// an online softmax per head row, O += P V (warp: 16 heads x 128 dims). One split writes out and
// lse itself; several write partials that sparse_mla_fast_combine_kernel merges.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/config.hpp"  // kFastCols, kSplitMaxCols
#include "kernels/sparse_mla/device.cuh"
#include "kernels/sparse_mla/model1.cuh"

namespace kgate::sparse_mla::gpu {
namespace {

template <int HT>
struct FastGeo {
  static constexpr int HG = 16 * HT;  // heads per CTA
  static constexpr int kWarps = 4 * HT, kThreads = 32 * kWarps;
  static constexpr int QS = 512 + 8, KS = 512 + 8;  // BF16 row strides (bank-conflict padding)
  static constexpr int SS = kFastCols + 1, PS = kFastCols + 8;
  static constexpr int RAWS = 592;                // FP8 staging row: 576 B data + 8 B scales, 16-B aligned
  static constexpr int kMaxCols = kSplitMaxCols;  // index columns a split may hold
  static constexpr int q_off = 0;
  static constexpr int k_off = q_off + HG * QS * 2;
  static constexpr int raw_off = k_off + 2 * kFastCols * KS * 2;
  static constexpr int s_off = raw_off + kFastCols * RAWS;
  static constexpr int p_off = s_off + 4 * HG * SS * 4;  // four partial S tiles (one per dim quarter)
  static constexpr int ml_off = p_off + HG * PS * 2;     // m, l, alpha: 3 x HG floats
  static constexpr int idx_off = ml_off + 3 * HG * 4;    // the split's row per column (-1: none), int + table bit
  static constexpr int kSmem = idx_off + kMaxCols * 4;
};

// A column in shared memory: its row | (compressed table) << 30, or -1 for none (invalid or
// inactive). The launcher refuses tables of 2^30 rows or more.
__device__ __forceinline__ int encode_col(int32_t row, bool comp) {
  return row < 0 ? -1 : (row | (comp ? 1 << 30 : 0));
}
// Token t's active index columns: lens[t] + lens_offset, clamped to [0, W] (W = 128 + topk).
__device__ __forceinline__ long long active_columns(const sparse_mla_args& a, int t) {
  const long long W = 128 + a.topk, v = static_cast<long long>(a.lens[t]) + a.lens_offset;
  return v < 0 ? 0 : (v > W ? W : v);
}
__device__ __forceinline__ const void* table_of(const sparse_mla_args& a, int e) {
  return e >= 0 && (e >> 30) ? a.compressed_kv : a.swa_kv;  // -1: any valid address (zero-fill reads nothing)
}
// The MODEL1 row of an encoded column e (FP8 tables); -1: row 0 of the SWA table, a valid address the zero-filling
// copies and masked loads do not read.
__device__ __forceinline__ Model1Row model1_col(const sparse_mla_args& a, int e) {
  return model1_row(table_of(a, e), e < 0 ? 0u : static_cast<uint32_t>(e) & ((1u << 30) - 1),
                    static_cast<uint32_t>(a.page_block));
}

// Partials: ws_o [T, H, splits, 512] BF16 (unnormalized: sum of p v, p <= 1, rounded once; the combine merges them in
// fp32), ws_ml [T, H, splits, 2] fp32 (m, l; base 2).
template <int HT>
__global__ void __launch_bounds__(FastGeo<HT>::kThreads, 1)
    sparse_mla_fast_kernel(sparse_mla_args a, int splits, int blocks_per_split, __nv_bfloat16* ws_o, float* ws_ml) {
  using G = FastGeo<HT>;
  constexpr int HG = G::HG, kThreads = G::kThreads, BC = kFastCols;
  extern __shared__ __align__(16) unsigned char smem[];
  __nv_bfloat16* sq = reinterpret_cast<__nv_bfloat16*>(smem + G::q_off);
  __nv_bfloat16* sk = reinterpret_cast<__nv_bfloat16*>(smem + G::k_off);
  unsigned char* raw = smem + G::raw_off;
  float* ss = reinterpret_cast<float*>(smem + G::s_off);
  __nv_bfloat16* sp = reinterpret_cast<__nv_bfloat16*>(smem + G::p_off);
  float* m_run = reinterpret_cast<float*>(smem + G::ml_off);
  float* l_run = m_run + HG;
  float* alpha = l_run + HG;
  int* scol = reinterpret_cast<int*>(smem + G::idx_off);

  const int split = blockIdx.x, hg = blockIdx.y, t = blockIdx.z;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, tq = lane & 3;
  const int ht = warp >> 2, wq = warp & 3;  // head tile; column quarter (S) / dim quarter (PV)
  const int W = 128 + a.topk, nblocks = (W + BC - 1) / BC;
  const long long active = active_columns(a, t);
  const int b0 = split * blocks_per_split, b1 = min(nblocks, b0 + blocks_per_split);
  const int c_begin = b0 * BC, c_end = min(W, b1 * BC);

  // Q tile (heads beyond the count zero) and the split's index columns.
  load_q_rows<HG, G::QS, kThreads>(sq, a, t, hg, threadIdx.x);
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  for (int c = c_begin + threadIdx.x; c < b1 * BC; c += kThreads) {
    int e = -1;
    if (c < c_end && c < active) {
      const bool comp = c >= 128;
      const int32_t r = comp ? a.compressed_indices[static_cast<long long>(t) * a.compressed_index_stride + (c - 128)]
                             : a.swa_indices[static_cast<long long>(t) * a.swa_index_stride + c];
      e = encode_col(r, comp);
    }
    scol[c - c_begin] = e;
  }
  if (threadIdx.x < HG) {
    m_run[threadIdx.x] = -INFINITY;
    l_run[threadIdx.x] = 0.f;
  }
  __syncthreads();

  // The gather of block blk into K buffer `buf` (BF16) or the staging buffer (FP8).
  auto gather = [&](int blk, int buf) {
    const int* cols = scol + (blk - b0) * BC;
    if (!a.kv_fp8) {
      __nv_bfloat16* dst = sk + buf * BC * G::KS;
      for (int i = threadIdx.x; i < BC * 64; i += kThreads) {
        const int j = i / 64, piece = i % 64, e = cols[j];
        const __nv_bfloat16* tab = static_cast<const __nv_bfloat16*>(table_of(a, e));
        const long long r = e < 0 ? 0 : (e & ((1 << 30) - 1));
        cp_async16_zfill(dst + j * G::KS + piece * 8, tab + r * 512 + piece * 8, e >= 0);
      }
    } else {
      for (int i = threadIdx.x; i < BC * 37; i += kThreads) {
        const int j = i / 37, piece = i % 37, e = cols[j];
        const Model1Row row = model1_col(a, e);
        if (piece < 36)
          cp_async16_zfill(raw + j * G::RAWS + piece * 16, row.data + piece * 16, e >= 0);
        else
          cp_async8_zfill(raw + j * G::RAWS + 576, row.scales, e >= 0);
      }
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  // FP8: the staged raw rows of a block to BF16 in K buffer `buf` (zero-filled rows give zeros).
  auto dequant = [&](int buf) {
    __nv_bfloat16* dst = sk + buf * BC * G::KS;
    for (int i = threadIdx.x; i < BC * 36; i += kThreads) {
      const int j = i / 36, piece = i % 36;
      const unsigned char* row = raw + j * G::RAWS;
      if (piece < 28) {
        const float sc = __uint_as_float(static_cast<uint32_t>(row[576 + piece / 4]) << 23);  // 2^(e - 127)
        const uint4 v = *reinterpret_cast<const uint4*>(row + piece * 16);
        uint4 o[2];
        dequant16(v, sc, o);
        *reinterpret_cast<uint4*>(dst + j * G::KS + piece * 16) = o[0];
        *reinterpret_cast<uint4*>(dst + j * G::KS + piece * 16 + 8) = o[1];
      } else {
        *reinterpret_cast<uint4*>(dst + j * G::KS + 448 + (piece - 28) * 8) =
            *reinterpret_cast<const uint4*>(row + 448 + (piece - 28) * 16);
      }
    }
  };

  float acc[16][4];
#pragma unroll
  for (int n = 0; n < 16; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;
  const float scale_log2 = a.sm_scale * 1.4426950408889634f;
  if (b0 < b1) gather(b0, 0);
  for (int blk = b0; blk < b1; ++blk) {
    const int buf = (blk - b0) & 1;
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();  // block blk staged; every warp is done with block blk - 1
    if (a.kv_fp8) {
      dequant(buf);
      __syncthreads();
    }
    if (blk + 1 < b1) gather(blk + 1, buf ^ 1);
    const __nv_bfloat16* kb = sk + buf * BC * G::KS;
    const int* cols = scol + (blk - b0) * BC;
    // S = Q K^T: warp (ht, wq) sums heads 16 ht .. + 15 x all 32 columns over dims 128 wq .. + 127
    // (each A fragment feeds four n tiles); the four partial tiles go to shared memory and the
    // softmax adds them.
    {
      float s[4][4] = {};
#pragma unroll
      for (int kk = 0; kk < 8; ++kk) {
        const int k0 = wq * 128 + kk * 16;
        uint32_t af[4];
        ldmatrix_x4(af, sq + (ht * 16 + (lane & 15)) * G::QS + k0 + (lane >> 4) * 8);
#pragma unroll
        for (int np = 0; np < 2; ++np) {
          uint32_t b[4];
          ldmatrix_x4(b, kb + (np * 16 + (lane & 7) + ((lane >> 4) << 3)) * G::KS + k0 + ((lane >> 3) & 1) * 8);
          mma_bf16(s[2 * np], af, b[0], b[1]);
          mma_bf16(s[2 * np + 1], af, b[2], b[3]);
        }
      }
      float* part = ss + wq * HG * G::SS;
#pragma unroll
      for (int nt = 0; nt < 4; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          part[(ht * 16 + g + (e >= 2 ? 8 : 0)) * G::SS + nt * 8 + 2 * tq + (e & 1)] = s[nt][e];
    }
    __syncthreads();
    // Online softmax: 8 threads per head row, 4 columns each.
    {
      const int row = threadIdx.x >> 3, part = threadIdx.x & 7;
      float v[4], mx = -INFINITY;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int col = part * 4 + e, at = row * G::SS + col;
        const float sum4 = (ss[at] + ss[HG * G::SS + at]) + (ss[2 * HG * G::SS + at] + ss[3 * HG * G::SS + at]);
        v[e] = cols[col] >= 0 ? sum4 * scale_log2 : -INFINITY;
        mx = fmaxf(mx, v[e]);
      }
      float m_old;
      const float m_new = row8_max(mx, m_run, row, m_old);
      float sum = 0.f;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float p = m_new == -INFINITY ? 0.f : exp2f(v[e] - m_new);
        sum += p;
        sp[row * G::PS + part * 4 + e] = __float2bfloat16(p);
      }
      row8_update(sum, m_old, m_new, row, part, m_run, l_run, alpha);
    }
    __syncthreads();
    // O = O * alpha + P V: warp (ht, wq) owns heads 16 ht .. + 15, dims 128 wq .. + 127.
    const float al0 = alpha[ht * 16 + g], al1 = alpha[ht * 16 + g + 8];
    scale_acc(acc, al0, al1);
#pragma unroll
    for (int kk = 0; kk < BC / 16; ++kk) {
      uint32_t af[4];
      ldmatrix_x4(af, sp + (ht * 16 + (lane & 15)) * G::PS + kk * 16 + (lane >> 4) * 8);
#pragma unroll
      for (int n = 0; n < 16; n += 2) {
        uint32_t v[4];
        ldmatrix_x4_trans(v, kb + (kk * 16 + (lane & 15)) * G::KS + wq * 128 + n * 8 + (lane >> 4) * 8);
        mma_bf16(acc[n], af, v[0], v[1]);
        mma_bf16(acc[n + 1], af, v[2], v[3]);
      }
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");  // an empty split's Q copy
  __syncthreads();
  const int r0 = ht * 16 + g, r1 = r0 + 8, h0 = hg * HG + r0, h1 = hg * HG + r1;
  if (splits == 1) {
    // Out and lse directly: normalized, the sink applied.
    auto finish = [&](int r, int h, int half) {
      if (h >= a.heads) return;
      const float L = l_run[r], M = m_run[r];
      const long long o = (static_cast<long long>(t) * a.heads + h) * 512;
      __nv_bfloat16* out = static_cast<__nv_bfloat16*>(a.out) + o;
      float f = 0.f, lse = -INFINITY;
      if (L > 0.f) {
        lse = (M + log2f(L)) * 0.6931471805599453f;
        f = (a.sink ? 1.f / (1.f + expf(a.sink[h] - lse)) : 1.f) / L;
      }
#pragma unroll
      for (int n = 0; n < 16; ++n) {
        const int col = wq * 128 + n * 8 + 2 * tq;
        *reinterpret_cast<__nv_bfloat162*>(out + col) =
            __floats2bfloat162_rn(acc[n][2 * half] * f, acc[n][2 * half + 1] * f);
      }
      if (wq == 0 && tq == 0) a.lse[static_cast<long long>(t) * a.heads + h] = lse;
    };
    finish(r0, h0, 0);
    finish(r1, h1, 1);
    return;
  }
  auto partial = [&](int r, int h, int half) {
    if (h >= a.heads) return;
    const long long base = (static_cast<long long>(t) * a.heads + h) * splits + split;
#pragma unroll
    for (int n = 0; n < 16; ++n) {
      const int col = wq * 128 + n * 8 + 2 * tq;
      *reinterpret_cast<__nv_bfloat162*>(ws_o + base * 512 + col) =
          __floats2bfloat162_rn(acc[n][2 * half], acc[n][2 * half + 1]);
    }
    if (wq == 0 && tq == 0) *reinterpret_cast<float2*>(ws_ml + base * 2) = make_float2(m_run[r], l_run[r]);
  };
  partial(r0, h0, 0);
  partial(r1, h1, 1);
}

// Combine: two warps per (token, head), each half of the 512 dims (8 per lane: one 16-byte BF16 unit at 256 x half +
// 8 x lane, a coalesced 512-byte part), 4 heads per CTA: merges the splits (in fp32) and the sink. Every load that
// does not depend on another is issued first: the (m, l) pairs (lane s holds split s) and the first kCombineChunk
// splits' o parts, so up to 4 splits cost about one L2 round trip, not one per split (the kernel before: 3 + splits).
constexpr int kCombineHeads = 4, kCombineChunk = 4;
__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
// stride: the split slots of a row in the partials. nsplit (the warp-specialized kernel's length-balanced
// plan, fast_ws.cuh): per (token, 64-head group), the row's own split count (at most stride; 1: the
// row's only item wrote out and lse itself); null: every row has stride splits. The count's load is
// issued with the (m, l) pairs' and the first two splits' o (a split row has two or more), the rest
// after it: reading four splits before the count was in cost the plan's rows up to 5 us in unused
// slots' bytes (kernels/sparse_mla/NOTES.md).
__global__ void __launch_bounds__(64 * kCombineHeads, 4)
    sparse_mla_fast_combine_kernel(sparse_mla_args a, int stride, const __nv_bfloat16* ws_o, const float* ws_ml,
                                   const int* nsplit) {
  const int lane = threadIdx.x & 31, half = (threadIdx.x >> 5) & 1, t = blockIdx.y;
  const int h = blockIdx.x * kCombineHeads + (threadIdx.x >> 6);
  if (h >= a.heads) return;  // warp-uniform
  const long long th = static_cast<long long>(t) * a.heads + h, base = th * stride;
  const float2* ml = reinterpret_cast<const float2*>(ws_ml) + base;
  const int d0 = 256 * half + lane * 8;
  const __nv_bfloat16* o_row = ws_o + base * 512 + d0;
  uint4 o[kCombineChunk];
  auto load_chunk = [&](int s0, int c0, int c1, int n) {  // splits s0 + c, c in [c0, c1), below n
#pragma unroll
    for (int c = c0; c < c1; ++c)
      if (s0 + c < n) o[c] = *reinterpret_cast<const uint4*>(o_row + (s0 + c) * 512ll);
  };
  const int splits = nsplit ? nsplit[t * ((a.heads + 63) / 64) + h / 64] : stride;
  const float sink = a.sink ? a.sink[h] : 0.f;
  float2 mine = lane < stride ? ml[lane] : make_float2(-INFINITY, 0.f);
  load_chunk(0, 0, 2, stride);
  if (splits == 1) return;  // warp-uniform
  load_chunk(0, 2, kCombineChunk, splits);
  if (lane >= splits) mine = make_float2(-INFINITY, 0.f);
  // M: the largest m; L: sum of l x 2^(m - M) over the splits (lanes past 32 splits loop).
  float M = mine.x;
  for (int s = lane + 32; s < splits; s += 32) M = fmaxf(M, ml[s].x);
  M = warp_max(M);
  float L = mine.x == -INFINITY ? 0.f : mine.y * exp2f(mine.x - M);
  for (int s = lane + 32; s < splits; s += 32) {
    const float2 v = ml[s];
    if (v.x != -INFINITY) L += v.y * exp2f(v.x - M);
  }
  L = warp_sum(L);
  __nv_bfloat16* out = static_cast<__nv_bfloat16*>(a.out) + th * 512 + d0;
  if (L == 0.f) {
    *reinterpret_cast<uint4*>(out) = make_uint4(0, 0, 0, 0);
    if (lane == 0 && half == 0) a.lse[th] = -INFINITY;
    return;
  }
  const float lse = (M + log2f(L)) * 0.6931471805599453f;
  const float f = (a.sink ? 1.f / (1.f + expf(sink - lse)) : 1.f) / L;
  float v[8] = {};
  for (int s0 = 0; s0 < splits; s0 += kCombineChunk) {
    if (s0) load_chunk(s0, 0, kCombineChunk, splits);
#pragma unroll
    for (int c = 0; c < kCombineChunk; ++c) {
      const int s = s0 + c;
      if (s >= splits) break;
      const float m = s < 32 ? __shfl_sync(0xffffffffu, mine.x, s) : ml[s].x;
      if (m == -INFINITY) continue;  // uniform across the warp; such a split's o (loaded) is not used
      const float w = exp2f(m - M);
      const __nv_bfloat162* p = reinterpret_cast<const __nv_bfloat162*>(&o[c]);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const float2 x = __bfloat1622float2(p[k]);
        v[2 * k] += x.x * w;
        v[2 * k + 1] += x.y * w;
      }
    }
  }
  alignas(16) __nv_bfloat162 packed[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) packed[k] = __floats2bfloat162_rn(v[2 * k] * f, v[2 * k + 1] * f);
  *reinterpret_cast<uint4*>(out) = *reinterpret_cast<const uint4*>(packed);
  if (lane == 0 && half == 0) a.lse[th] = lse;
}

}  // namespace
}  // namespace kgate::sparse_mla::gpu
