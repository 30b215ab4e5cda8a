#pragma once
// sparse_mla.fast, the 64-head path (sm_90a wgmma): a CTA of two warpgroups owns one token, 64
// query heads and a split of 64-column KV blocks. Shared memory holds Q and each KV block as BF16
// in the 128-byte-swizzled layout wgmma reads through descriptors: 64-dim chunks of 8 KB, a row's
// 128 B at row x 128, its 16-byte units XORed with row & 7 (every tile 1024-byte aligned).
// Per block: warpgroup w computes S = Q K^T for the block's columns 32 w .. 32 w + 31 over all 512
// dims (32 x m64n32k16, A = Q, B = K K-major), masks, exchanges its row maxima with the other
// warpgroup, writes P (BF16) into a 64 x 64 tile, and, once both halves are written, computes
// O[:, 256 w .. 256 w + 255] += P V (4 x m64n256k16, B = the same K tile read N-major). BF16 blocks
// are gathered by cp.async one block ahead into a second tile; FP8 blocks are staged raw one block
// ahead and dequantized into the single tile at the top of their step. One split writes out and
// lse; several write the BF16 partials sparse_mla_fast_combine_kernel merges.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/device.cuh"
#include "kernels/sparse_mla/fast.cuh"  // encode_col, table_of, model1_col, active_columns, the combine kernel

namespace kgate::sparse_mla::gpu {
namespace {

template <bool FP8>
struct WgGeo {
  static constexpr int kThreads = 256;
  static constexpr int kTile = 64 * 512 * 2;  // 64 rows x 512 BF16 dims: 8 chunks of 8 KB
  static constexpr int RAWS = 592;            // FP8 staging row: 576 B data + 8 B scales, 16-B aligned
  static constexpr int kMaxCols = kSplitMaxCols;
  static constexpr int q_off = 0;
  static constexpr int k_off = kTile;
  static constexpr int raw_off = k_off + (FP8 ? 1 : 2) * kTile;
  static constexpr int p_off = raw_off + (FP8 ? 2 * 64 * RAWS : 0);  // 1024-aligned (64 x 592 x 2 = 74 KB)
  static constexpr int red_off = p_off + 64 * 128;                   // 2 x 64 floats
  static constexpr int idx_off = red_off + 2 * 64 * 4;
  static constexpr int ptr_off = idx_off + kMaxCols * 4;                   // BF16: each column's row address (8 B)
  static constexpr int kSmem = ptr_off + (FP8 ? 0 : kMaxCols * 8) + 1024;  // + the alignment slack of the base
  static_assert(p_off % 1024 == 0, "the P tile must be 1024-byte aligned");
};

// The epilogue's stores (out, and a split's partials, both BF16). A warpgroup's m64n256 accumulator gives thread
// (g, tq) of a quad the pairs o[4n + 2 half], o[4n + 2 half + 1] of its row at columns 8n + 2tq, +1 (n < 32). Stored
// as they lie, one store instruction of a warp covers 8 rows x 16 bytes (BF16 pairs: half sectors), 64 stores per
// row pair. Exchanged across the quad first (xor shuffles), each instruction covers 8 rows x 64 contiguous bytes, 16
// bytes per thread: 16 stores. Measured (with fp32 partials, 32 stores): an unsplit h128 row of 2 blocks 19.0 -> 15.3
// us, the FP8 prefill rows 4-9 us shorter (an item's epilogue is on the persistent CTA's path), lockstep split rows
// 0.2-1.6 us.
// A 16-byte global store as one instruction: written as a uint4 through a cast pointer, NVVM split
// these into four 4-byte stores (PTX st.global.u32; ncu: 8 of 32 bytes used per sector), which made
// an fp32-partials epilogue 4-12 us slower than the 8-byte pairs.
__device__ __forceinline__ void stg128(void* p, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  __stcg(static_cast<uint4*>(p),
         make_uint4(x, y, z, w));  // st.global.cg.v4.u32 (L2: the combine reads the partials next)
}
// Exchange step over quad bit `m` (1 or 2): slot j of thread tq and slot j ^ m of thread tq ^ m trade
// places where bit m of j differs from bit m of tq.
template <int M>
__device__ __forceinline__ void quad_exchange(uint32_t (&v)[4], int tq) {
  const bool b = tq & M;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (i & M) continue;  // the pairs (i, i + M)
    const uint32_t y = __shfl_xor_sync(0xffffffffu, b ? v[i] : v[i + M], M);
    if (b)
      v[i] = y;
    else
      v[i + M] = y;
  }
}
// Both rows of the accumulator (half 0: row r0, half 1: r1) x f[half] as BF16 at dst[half] (the
// warpgroup's 256 columns of the row). Every thread of the warp calls it (the shuffles); only rows with
// store[half] are written (rows past the head count). Chunk group k of both rows at a time, so the
// accumulators die as they are stored. After both exchange steps (a 4 x 4 transpose) thread tq holds
// chunk 4k + tq's four words.
__device__ __forceinline__ void store_rows_bf16(__nv_bfloat16* const (&dst)[2], const float (&o)[128],
                                                const float (&f)[2], int tq, const bool (&store)[2]) {
#pragma unroll
  for (int k = 0; k < 8; ++k)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      uint32_t v[4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        v[j] = pack_bf16(o[4 * (4 * k + j) + 2 * half] * f[half], o[4 * (4 * k + j) + 2 * half + 1] * f[half]);
      quad_exchange<1>(v, tq);
      quad_exchange<2>(v, tq);
      if (store[half]) stg128(dst[half] + 8 * (4 * k + tq), v[0], v[1], v[2], v[3]);
    }
}
// The epilogue of rows h0, h1 of token t (a warpgroup's 256 columns; every thread calls it): one split
// writes out (x 1 / L and the sink's factor) and lse, several write the split's partials and (M, L).
// The sinks of rows h0 and h1 (0 where there is none; emit_rows reads them only with a.sink), loaded by the caller
// where their latency is hidden: the warp-specialized kernel at an item's start, not at its emit, whose stores would
// wait for them.
__device__ __forceinline__ float2 load_sinks(const sparse_mla_args& a, int h0, int h1) {
  return make_float2(a.sink && h0 < a.heads ? a.sink[h0] : 0.f, a.sink && h1 < a.heads ? a.sink[h1] : 0.f);
}
// kPre: the sinks come in SK (load_sinks, early); else emit_rows loads them itself (the lockstep kernel: its code as it
// was, since taking them early there measured 0.2 us slower on its small split rows).
template <bool kPre>
__device__ __forceinline__ void emit_rows(const sparse_mla_args& a, const float (&o)[128], int t, int h0, int h1,
                                          int splits, int split, int wg, int tq, const float (&L)[2],
                                          const float (&M)[2], float2 SK, __nv_bfloat16* ws_o, float* ws_ml) {
  const int h[2] = {h0, h1};
  const bool live[2] = {h0 < a.heads, h1 < a.heads};
  // The per-row scalars are written first, so only the two row pointers stay live through the stores.
  if (splits == 1) {
    float f[2];
    __nv_bfloat16* dst[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      f[i] = 0.f;
      float lse = -INFINITY;
      if (L[i] > 0.f) {
        lse = (M[i] + log2f(L[i])) * 0.6931471805599453f;
        f[i] =
            (a.sink && live[i] ? 1.f / (1.f + expf((kPre ? (i == 0 ? SK.x : SK.y) : a.sink[h[i]]) - lse)) : 1.f) / L[i];
      }
      if (live[i] && wg == 0 && tq == 0) a.lse[static_cast<long long>(t) * a.heads + h[i]] = lse;
      dst[i] = static_cast<__nv_bfloat16*>(a.out) + (static_cast<long long>(t) * a.heads + (live[i] ? h[i] : 0)) * 512 +
               256 * wg;
    }
    store_rows_bf16(dst, o, f, tq, live);
    return;
  }
  __nv_bfloat16* dst[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const long long base = (static_cast<long long>(t) * a.heads + (live[i] ? h[i] : 0)) * splits + split;
    if (live[i] && wg == 0 && tq == 0) *reinterpret_cast<float2*>(ws_ml + base * 2) = make_float2(M[i], L[i]);
    dst[i] = ws_o + base * 512 + 256 * wg;
  }
  store_rows_bf16(dst, o, {1.f, 1.f}, tq, live);  // the split's partials, unnormalized
}

template <bool FP8>
__global__ void __launch_bounds__(256, 1)
    sparse_mla_fast_wg_kernel(sparse_mla_args a, int splits, int blocks_per_split, __nv_bfloat16* ws_o, float* ws_ml) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using G = WgGeo<FP8>;
  constexpr int BC = kWgCols;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smem_u32(smem_raw) & 1023)) & 1023);
  unsigned char* sq = smem + G::q_off;
  unsigned char* sk = smem + G::k_off;
  unsigned char* raw = smem + G::raw_off;
  unsigned char* sp = smem + G::p_off;
  float* red = reinterpret_cast<float*>(smem + G::red_off);
  int* scol = reinterpret_cast<int*>(smem + G::idx_off);
  uintptr_t* sptr = reinterpret_cast<uintptr_t*>(smem + G::ptr_off);

  const int split = blockIdx.x, hg = blockIdx.y, t = blockIdx.z;
  // wg through a shuffle, so the compiler knows it is warp-uniform (descriptors in uniform registers).
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid >> 7, 0), warp = (tid >> 5) & 3, lane = tid & 31,
            g = lane >> 2, tq = lane & 3;
  const int r0 = warp * 16 + g, r1 = r0 + 8;  // this thread's accumulator rows (heads within the CTA)
  constexpr int kTPR = G::kThreads / BC;      // FP8 staging and dequant: threads per row
  const int W = 128 + a.topk, nblocks = (W + BC - 1) / BC;
  const long long active = active_columns(a, t);
  const int b0 = split * blocks_per_split, b1 = min(nblocks, b0 + blocks_per_split);
  const int c_begin = b0 * BC, c_end = min(W, b1 * BC);

  // Q (heads beyond the count zero) and the split's index columns.
  load_q_tile(sq, a, t, hg, tid, G::kThreads);
  asm volatile("cp.async.commit_group;\n" ::: "memory");
  // Every column's index is loaded whether or not it is active (c < W is inside the table), so the
  // index loads do not wait for lens[t].
  for (int c = c_begin + tid; c < b1 * BC; c += G::kThreads) {
    const bool comp = c >= 128, in = c < c_end;
    const int32_t r = !in    ? -1
                      : comp ? a.compressed_indices[static_cast<long long>(t) * a.compressed_index_stride + (c - 128)]
                             : a.swa_indices[static_cast<long long>(t) * a.swa_index_stride + c];
    const int e = in && c < active ? encode_col(r, comp) : -1;
    scol[c - c_begin] = e;
    if (!FP8)  // the row's address; a column with no row: the table's base | 1 (read as zero-fill)
      sptr[c - c_begin] =
          e < 0 ? reinterpret_cast<uintptr_t>(a.swa_kv) | 1
                : reinterpret_cast<uintptr_t>(table_of(a, e)) + static_cast<uintptr_t>(e & ((1 << 30) - 1)) * 1024;
  }
  __syncthreads();

  // The gather of block blk: BF16 rows into K tile `buf`, FP8 rows raw into staging buffer `buf`.
  auto gather = [&](int blk, int buf) {
    const int* cols = scol + (blk - b0) * BC;
    if (!FP8) {
      // Thread: one 16-byte unit u of rows tid / 64 + 4 k (a row's 64 units by 64 consecutive threads).
      // Row j = j0 + 4 k has j & 7 = j0 + 4 (k & 1), so two swizzled offsets serve every k.
      const int u = tid & 63, j0 = tid >> 6;
      unsigned char* dst0 = sk + buf * G::kTile + sw_off(j0, u);
      unsigned char* dst1 = sk + buf * G::kTile + sw_off(j0 + 4, u) - 512;
      const uintptr_t* ptrs = sptr + (blk - b0) * BC + j0;
#pragma unroll
      for (int k = 0; k < BC / 4; ++k) {
        const uintptr_t pr = ptrs[4 * k];
        cp_async16_zfill((k & 1 ? dst1 : dst0) + 512 * k, reinterpret_cast<const void*>((pr & ~uintptr_t{1}) + u * 16),
                         !(pr & 1));
      }
    } else {
      // Thread: row j = tid / TPR, pieces tid % TPR + TPR k of its 37 (36 data pieces of 16 B, the
      // 8 B of scales).
      const int j = tid / kTPR, q = tid % kTPR;
      unsigned char* dst = raw + buf * BC * G::RAWS + j * G::RAWS;
      const int e = cols[j];
      const Model1Row row = model1_col(a, e);
#pragma unroll
      for (int k = 0; k < (36 + kTPR - 1) / kTPR; ++k)
        if (q + kTPR * k < 36) cp_async16_zfill(dst + (q + kTPR * k) * 16, row.data + (q + kTPR * k) * 16, e >= 0);
      if (q == 0) cp_async8_zfill(dst + 576, row.scales, e >= 0);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  // FP8: staged raw rows (buffer `buf`) to BF16 in the K tile, swizzled (zero-filled rows give zeros).
  auto dequant = [&](int buf) {
    // Thread: row j = tid / TPR, pieces tid % TPR + TPR k of its 36 (28 e4m3 pieces of 16 values,
    // then 8 BF16 pieces: a warp's lanes take the same branch).
    const int j = tid / kTPR;
    const unsigned char* row = raw + buf * BC * G::RAWS + j * G::RAWS;
    auto put = [&](int u, uint4 v) { *reinterpret_cast<uint4*>(sk + sw_off(j, u)) = v; };
#pragma unroll
    for (int k = 0; k < (36 + kTPR - 1) / kTPR; ++k) {
      const int piece = tid % kTPR + kTPR * k;
      if (piece >= 36) break;
      if (piece < 28) {
        const float sc = __uint_as_float(static_cast<uint32_t>(row[576 + piece / 4]) << 23);  // 2^(e - 127)
        const uint4 v = *reinterpret_cast<const uint4*>(row + piece * 16);
        uint4 o[2];
        dequant16(v, sc, o);
        put(piece * 2, o[0]);
        put(piece * 2 + 1, o[1]);
      } else {
        put(56 + piece - 28, *reinterpret_cast<const uint4*>(row + 448 + (piece - 28) * 16));
      }
    }
  };

  float o[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) o[i] = 0.f;
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;  // running max (base 2) and this thread's partial sums
  const float scale_log2 = a.sm_scale * 1.4426950408889634f;
  // Descriptors: built once; a byte offset o moves the start address field by o / 16 (addresses stay
  // below 2^18, so the 14-bit field never carries).
  const uint64_t dq = wg_desc(smem_u32(sq), 16, 1024), dp = wg_desc(smem_u32(sp), 16, 1024);
  // Blocks past the token's active columns hold no active column: they are not gathered or computed.
  const int b_act = min(b1, static_cast<int>((active + BC - 1) / BC));
  if (b0 < b_act) gather(b0, 0);
  for (int blk = b0; blk < b_act; ++blk) {
    const int step = blk - b0, buf = FP8 ? 0 : (step & 1);
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    fence_proxy_async();
    __syncthreads();  // block blk staged; both warpgroups are done with block blk - 1
    // The next block's gather first: for FP8 it streams in while this block is dequantized.
    if (blk + 1 < b_act) gather(blk + 1, FP8 ? ((step + 1) & 1) : (buf ^ 1));
    if (FP8) {
      dequant(step & 1);
      fence_proxy_async();
      __syncthreads();
    }
    const uint32_t k_addr = smem_u32(sk + buf * G::kTile);
    const uint64_t dk = wg_desc(k_addr + wg * 4096, 16, 1024), dv = wg_desc(k_addr + wg * 4 * 8192, 8192, 1024);

    // S = Q K^T over this warpgroup's 32 columns.
    float s[16];
    wg_qk(s, dq, dk);

    // Mask, scale, row maxima (exchanged with the other warpgroup), P.
    float mx0 = -INFINITY, mx1 = -INFINITY;
    mask_rows_max(s, scol + step * BC + 32 * wg, tq, scale_log2, mx0, mx1);
    if (tq == 0) {
      red[wg * 64 + r0] = mx0;
      red[wg * 64 + r1] = mx1;
    }
    __syncthreads();
    const float n0 = fmaxf(m0, fmaxf(red[r0], red[64 + r0])), n1 = fmaxf(m1, fmaxf(red[r1], red[64 + r1]));
    const RowStep z = row_step(m0, m1, n0, n1);
    m0 = n0;
    m1 = n1;
    float sum0 = 0.f, sum1 = 0.f;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const PChunk c = p_chunk(s, i, z, sum0, sum1);
      const int u = 4 * wg + i;
      *reinterpret_cast<__nv_bfloat162*>(sp + r0 * 128 + ((u ^ (r0 & 7)) << 4) + tq * 4) =
          __floats2bfloat162_rn(c.p00, c.p01);
      *reinterpret_cast<__nv_bfloat162*>(sp + r1 * 128 + ((u ^ (r1 & 7)) << 4) + tq * 4) =
          __floats2bfloat162_rn(c.p10, c.p11);
    }
    l0 = l0 * z.al0 + sum0;
    l1 = l1 * z.al1 + sum1;
    rescale_o(o, z.al0, z.al1);
    fence_proxy_async();
    __syncthreads();  // both halves of P written

    // O[:, 256 wg ..] += P V.
    wg_pv(o, dp, dv);
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");  // an empty split's Q copy

  asm volatile("cp.async.wait_group 0;\n" ::: "memory");  // Q's copy, when no block ran
  // Row sums: over the quad, then the two warpgroups.
  const float2 lq = quad_sum(l0, l1);
  l0 = lq.x;
  l1 = lq.y;
  __syncthreads();  // every read of red by the last block is done
  if (tq == 0) {
    red[wg * 64 + r0] = l0;
    red[wg * 64 + r1] = l1;
  }
  __syncthreads();
  const float L0 = red[r0] + red[64 + r0], L1 = red[r1] + red[64 + r1];
  emit_rows<false>(a, o, t, hg * 64 + r0, hg * 64 + r1, splits, split, wg, tq, {L0, L1}, {m0, m1},
                   make_float2(0.f, 0.f), ws_o, ws_ml);
#else
  __trap();  // built without sm_90a: the launcher routes 64-head rows here only on sm_90a builds
#endif
}

}  // namespace
}  // namespace kgate::sparse_mla::gpu
