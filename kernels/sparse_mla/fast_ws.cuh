#pragma once
// sparse_mla.fast, the warp-specialized 64-head path (sm_90a). A CTA's work items come one of two ways:
// - the queue: items (token, 64-head group, split of 64-column KV blocks) of equal width, as in
//   fast_wg.cuh, cut at the token's active columns (an item keeps at least one block). A persistent
//   grid of at most one CTA per SM starts with item blockIdx.x and takes the rest from a queue (an
//   atomic counter in global memory, reset by the last CTA to finish taking; from two items per CTA in
//   tokens by active length, longest first), so CTAs whose items are short take more;
// - the length-balanced plan (ws_plan.hpp, the launcher's routing in launch.cu): CTA c takes the items
//   the plan lists for it, segments of (token, head group) pairs cut by active blocks, so every CTA's
//   share of the active blocks is about equal; a pair's only segment writes out and lse itself.
// In a CTA of three warpgroups gathering and computing overlap instead of alternating, across items
// too:
// - warpgroup 2, the producer, walks the CTA's blocks in order and fills K stage (block count) % 2,
//   BF16 in the 128-byte-swizzled layout of fast_wg.cuh, with the columns' rows (-1: masked), then
//   arrives on the stage's `full` mbarrier, with the item after the stage's block in the stage
//   (consumers learn the next item there, at an item's last block); it refills a stage once both
//   consumers have arrived on its `empty` mbarrier. FP8 rows are loaded into registers one block
//   ahead (the next block's indices and rows stream in while this block is dequantized); BF16 rows
//   go by cp.async once the stage is free;
// - warpgroup 0 holds Q (reloaded by cp.async for the next item after the item's last S) and
//   computes S = Q K^T over all 64 columns (32 x m64n64k16: Q is read once per block), the mask and
//   the online softmax on whole rows, writes P (BF16) and the rows' rescale factors to shared
//   memory for warpgroup 1, and computes O[:, 0..255] += P V with P from registers;
// - warpgroup 1 rescales its O and computes O[:, 256..511] += P V with P from shared memory.
// Named barriers, each synced by both consumer warpgroups, order P between the two (kPReady, kPFree)
// and hand warpgroup 1 the item's final L and M (kFinal). A warpgroup's own syncs (warpgroup 0's Q,
// the producer's queue slot) are mbarriers, not 128-thread named barriers: with one of those beside
// the shared ones, racecheck reports the synced hand-offs (scripts/device/diag/named_barrier_racecheck.cu,
// modes 5 and 6; kernels/sparse_mla/NOTES.md). Registers move to the consumers by
// setmaxnreg (200 / 160 / 144: the sum must stay within the 3 x 168 allocated at launch, or the
// increase waits forever). One split writes out and lse; several write the partials
// sparse_mla_fast_combine_kernel merges.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/ws_plan.hpp"
#include "kernels/sparse_mla/fast_wg.cuh"  // kWgCols, wg_desc, the wgmma fences, ex2, sw_off, encode_col, table_of

namespace kgate::sparse_mla::gpu {
namespace {

struct WsGeo {
  static constexpr int kThreads = 384;
  static constexpr int kStages = 2;
  static constexpr int kTile = 64 * 512 * 2;
  static constexpr int q_off = 0;
  static constexpr int k_off = kTile;
  static constexpr int p_off = k_off + kStages * kTile;     // 64 x 64 BF16, swizzled
  static constexpr int alpha_off = p_off + 64 * 128;        // 64 floats: this block's rescale per row
  static constexpr int fin_off = alpha_off + 64 * 4;        // 2 (item parity) x 2 x 64 floats: final L and M per row
  static constexpr int col_off = fin_off + 2 * 2 * 64 * 4;  // kStages x 64 ints: each staged column's row (-1: none)
  static constexpr int bar_off = col_off + kStages * 64 * 4;  // full[kStages], empty[kStages], q, grab (8 B each)
  static constexpr int meta_off = bar_off + (2 * kStages + 2) * 8;  // kStages x the next item after the stage's block
  static constexpr int grab_off = meta_off + kStages * 4;     // 2 slots: items taken from the queue
  static constexpr int kSmem = grab_off + 2 * 4 + 1024;       // + the alignment slack of the base
  static_assert(p_off % 1024 == 0, "the P tile must be 1024-byte aligned");
};
// A CTA's work item: one (token, head group, split), items taken round-robin by the persistent grid.
// split: the item's split of its rows' partials; -1 (the length-balanced plan's items only): the rows'
// only item, which writes out and lse.
struct WsItem {
  int t, hg, split, b0, b1, c_end;
  long long active;
};
// order: null (tokens in index order) or tokens by active blocks, most first (sparse_mla_ws_order_kernel).
__device__ __forceinline__ WsItem ws_item(const sparse_mla_args& a, const int* order, int item, int groups, int splits, int bps) {
  const int W = 128 + a.topk, nblocks = (W + kWgCols - 1) / kWgCols;
  WsItem it;
  it.split = item % splits;
  it.hg = (item / splits) % groups;
  it.t = order ? order[item / splits / groups] : item / splits / groups;
  it.active = active_columns(a, it.t);
  // Blocks past the active columns are skipped; an item keeps one block (all masked when its split
  // starts past them), so every item has a last block for the hand-offs below.
  it.b0 = it.split * bps;
  it.b1 = max(it.b0 + 1, min(min(nblocks, it.b0 + bps), static_cast<int>((it.active + kWgCols - 1) / kWgCols)));
  it.c_end = min(W, it.b1 * kWgCols);
  return it;
}
// The length-balanced plan (ws_plan.hpp): item idx of the plan's buffer.
__device__ __forceinline__ WsItem ws_plan_item(const sparse_mla_args& a, const int4* items, int idx) {
  const int4 v = items[idx];
  WsItem it;
  it.t = v.x;
  it.hg = v.y & 255;
  it.split = (v.y >> 8) - 1;
  it.b0 = v.z & 0xffff;
  it.b1 = static_cast<int>(static_cast<unsigned>(v.z) >> 16);
  it.active = v.w;
  it.c_end = min(128 + a.topk, it.b1 * kWgCols);
  return it;
}
// One CTA: the active columns per token in parallel, then thread 0 walks the partitions (ws_plan.hpp).
__global__ void __launch_bounds__(256) sparse_mla_ws_plan_kernel(sparse_mla_args a, int groups, int parts, int overhead, int* plan) {
  __shared__ int act[kPlanMaxTokens];
  for (int t = threadIdx.x; t < a.tokens; t += blockDim.x) act[t] = static_cast<int>(active_columns(a, t));
  __syncthreads();
  if (threadIdx.x == 0) ws_plan_walk(act, a.tokens, groups, parts, overhead, plan);
}
enum WsBarrier : int { kPReady = 1, kPFree = 2, kFinal = 3 };  // named barriers (0 is __syncthreads)

__device__ __forceinline__ void mbar_init(uint32_t bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n.reg .pred p;\nWS_WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WS_WAIT;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void named_sync(int id, int n) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
// One warpgroup's barrier on an mbarrier of 128 arrivals: the n-th use (from 0) arrives and waits
// for phase n to complete.
__device__ __forceinline__ void wg_mbar_sync(uint32_t bar, int n) {
  mbar_arrive(bar);
  mbar_wait(bar, n & 1);
}
template <int N>
__device__ __forceinline__ void reg_alloc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void reg_dealloc() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
__device__ __forceinline__ uint4 ldg_nc16(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
// Eight e4m3 values (two words) times a power-of-two scale (BF16 pair sc2), as eight BF16 (one 16-byte
// unit). Each e4m3 value is exact in BF16 and the power-of-two product is exact, so the BF16 multiply
// gives fp32's result with one instruction a pair instead of two (FlashMLA scales in BF16 the same way).
__device__ __forceinline__ uint4 dequant8(uint32_t w0, uint32_t w1, __nv_bfloat162 sc2) {
  uint4 o;
  uint32_t* ob = &o.x;
  const uint32_t w[2] = {w0, w1};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const __nv_fp8x2_e4m3* f = reinterpret_cast<const __nv_fp8x2_e4m3*>(&w[h]);
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const float2 x = static_cast<float2>(f[e]);
      const __nv_bfloat162 y = __hmul2(__floats2bfloat162_rn(x.x, x.y), sc2);
      ob[2 * h + e] = *reinterpret_cast<const uint32_t*>(&y);
    }
  }
  return o;
}

// The tokens by active 64-column blocks, most first (a counting sort; ties in any order), so the queue
// hands out the longest items first and the CTAs finish together. One CTA of 1024 threads.
constexpr int kOrderBuckets = 1024;
__global__ void __launch_bounds__(1024) sparse_mla_ws_order_kernel(sparse_mla_args a, int* order) {
  __shared__ int count[kOrderBuckets];
  const int W = 128 + a.topk;
  auto bucket = [&](int t) {  // kOrderBuckets - 1 - active blocks, clamped: the sort is ascending
    const int nb = static_cast<int>((active_columns(a, t) + kWgCols - 1) / kWgCols);
    return kOrderBuckets - 1 - min(nb, kOrderBuckets - 1);
  };
  for (int i = threadIdx.x; i < kOrderBuckets; i += blockDim.x) count[i] = 0;
  __syncthreads();
  for (int t = threadIdx.x; t < a.tokens; t += blockDim.x) atomicAdd(&count[bucket(t)], 1);
  __syncthreads();
  if (threadIdx.x == 0) {  // exclusive prefix over the buckets in use (the highest ones)
    int sum = 0;
    for (int b = kOrderBuckets - 1 - min((W + kWgCols - 1) / kWgCols, kOrderBuckets - 1); b < kOrderBuckets; ++b) {
      const int c = count[b];
      count[b] = sum;
      sum += c;
    }
  }
  __syncthreads();
  for (int t = threadIdx.x; t < a.tokens; t += blockDim.x) order[atomicAdd(&count[bucket(t)], 1)] = t;
}

template <bool FP8>
__global__ void __launch_bounds__(384, 1)
    sparse_mla_fast_ws_kernel(sparse_mla_args a, int splits, int blocks_per_split, float* ws_o, float* ws_ml, int* queue,
                              const int* order, const int* plan) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using G = WsGeo;
  constexpr int BC = kWgCols, NS = G::kStages;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (smem_u32(smem_raw) & 1023)) & 1023);
  unsigned char* sq = smem + G::q_off;
  unsigned char* sk = smem + G::k_off;
  unsigned char* sp = smem + G::p_off;
  float* salpha = reinterpret_cast<float*>(smem + G::alpha_off);
  float* sfin = reinterpret_cast<float*>(smem + G::fin_off);
  int* scol = reinterpret_cast<int*>(smem + G::col_off);
  const uint32_t bars = smem_u32(smem + G::bar_off);  // full[s] at bars + 8 s, empty[s] at bars + 8 (NS + s)
  const uint32_t qbar = bars + 8 * 2 * NS, grabbar = qbar + 8;  // warpgroup 0's Q, the producer's queue slot
  int* snext = reinterpret_cast<int*>(smem + G::meta_off);
  int* sgrab = reinterpret_cast<int*>(smem + G::grab_off);

  const int groups = (a.heads + 63) / 64, items = a.tokens * groups * splits;
  // plan: null (items (token, group, split) from blockIdx.x and the queue) or the length-balanced plan
  // (sparse_mla_ws_plan_kernel; CTA c takes item c, then items parts + plan[4 + 2 c] .. parts + plan[5 + 2 c] - 1).
  const WsPlanLayout PL{static_cast<int>(gridDim.x), a.tokens * groups};
  const int4* pitems = plan ? reinterpret_cast<const int4*>(plan + PL.items_off()) : nullptr;
  auto item_of = [&](int idx) {
    return plan ? ws_plan_item(a, pitems, idx) : ws_item(a, order, idx, groups, splits, blocks_per_split);
  };
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid >> 7, 0);
  if (tid == 0) {
    for (int s = 0; s < NS; ++s) {
      mbar_init(bars + 8 * s, 128);         // full: every producer thread
      mbar_init(bars + 8 * (NS + s), 256);  // empty: every consumer thread
    }
    mbar_init(qbar, 128);
    mbar_init(grabbar, 128);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  // The first item is the CTA's index (the grid is at most the item count); the queue hands out
  // the rest, from gridDim.x up.
  const int first_item = plan ? (pitems[blockIdx.x].x >= 0 ? static_cast<int>(blockIdx.x) : -1)
                              : (blockIdx.x < items ? static_cast<int>(blockIdx.x) : -1);

  if (wg == 2) {
    // ---- producer: the blocks of every item in order, through the two stages --------------------
    reg_dealloc<144>();
    const int p = tid - 256, warp = p >> 5, lane = p & 31, qd = lane >> 3;
    const int jr = warp * 8 + (lane & 7);  // this thread's rows of a block: jr and jr + 32
    // The row behind row jr + 32 r of block blk of item it (-1: none, masked). Issuing the index loads
    // before the token's length is in (predicate c < W instead of c < c_end, the same loads) measured
    // 2-4 % slower on every warp-specialized row (NOTES, "The epilogue's stores ..."), so they wait for it.
    auto col_of = [&](const WsItem& it, int blk, int r) {
      const int c = blk * BC + jr + 32 * r;
      const bool comp = c >= 128;
      const int32_t row = c >= it.c_end ? -1
                          : comp ? a.compressed_indices[static_cast<long long>(it.t) * a.compressed_index_stride + (c - 128)]
                                 : a.swa_indices[static_cast<long long>(it.t) * a.swa_index_stride + c];
      return c < it.active ? encode_col(row, comp) : -1;
    };
    // The CTA's block sequence: (item, blk), advanced by next(); `valid` false past the last block.
    struct Cursor {
      WsItem it;
      int item, blk;
      bool valid;
    };
    auto start = [&](int item) {
      Cursor c{};
      c.item = item;
      c.valid = item >= 0;
      if (c.valid) {
        c.it = item_of(item);
        c.blk = c.it.b0;
      }
      return c;
    };
    // The CTA's next item from the queue (-1: none left): thread 0 of the producer takes each item one
    // item ahead (`ahead`, so the atomic's round trip overlaps the item before), all 128 read it (two
    // slots: a slot is rewritten two takes later, after every reader has passed the barrier between).
    const int base = static_cast<int>(gridDim.x);
    int takes = 0, ahead = !plan && p == 0 && first_item >= 0 ? base + atomicAdd(queue, 1) : items;
    const int plan_end = plan ? plan[5 + 2 * blockIdx.x] : 0;
    int plan_next = plan ? plan[4 + 2 * blockIdx.x] : 0;
    auto take = [&]() {
      if (plan) return plan_next < plan_end ? PL.parts + plan_next++ : -1;
      const int slot = ++takes & 1;
      if (p == 0) {
        sgrab[slot] = ahead;
        if (ahead < items) ahead = base + atomicAdd(queue, 1);
      }
      wg_mbar_sync(grabbar, takes - 1);
      return sgrab[slot] < items ? sgrab[slot] : -1;
    };
    auto first = [&]() { return start(first_item); };
    auto next = [&](Cursor c) {
      if (++c.blk < c.it.b1) return c;
      return start(take());
    };
    // After the CTA's last take: the last CTA to finish taking resets the queue for the next launch.
    auto release_queue = [&]() {
      if (plan || p != 0) return;
      __threadfence();
      if (atomicAdd(queue + 1, 1) == static_cast<int>(gridDim.x) - 1) {
        queue[0] = 0;
        queue[1] = 0;
        __threadfence();
      }
    };
    if (!FP8) {
      int gstep = 0;
      for (Cursor cur = first(); cur.valid; ++gstep) {
        const int st = gstep % NS;
        const Cursor nx = next(cur);
        const int e[2] = {col_of(cur.it, cur.blk, 0), col_of(cur.it, cur.blk, 1)};
        unsigned char* dst = sk + st * G::kTile;
        if (gstep >= NS) mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
        // Thread: 16-byte units u = qd + 4 i of its two rows.
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const unsigned char* row = static_cast<const unsigned char*>(table_of(a, e[r])) +
                                     static_cast<long long>(e[r] < 0 ? 0 : (e[r] & ((1 << 30) - 1))) * 1024;
#pragma unroll
          for (int i = 0; i < 16; ++i) cp_async16_zfill(dst + sw_off(jr + 32 * r, qd + 4 * i), row + (qd + 4 * i) * 16, e[r] >= 0);
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        if (qd == 0) {
          scol[st * 64 + jr] = e[0];
          scol[st * 64 + jr + 32] = e[1];
        }
        if (p == 0) snext[st] = nx.valid ? nx.item : -1;
        fence_proxy_async();
        mbar_arrive(bars + 8 * st);
        cur = nx;
      }
    } else {
      // FP8, software-pipelined: a row's e4m3 pieces qd + 4 i (i < 7: dims 16 (qd + 4 i) .., scale i)
      // and RoPE pieces qd + 4 i (i < 2) live in registers v[r] from their load until their dequant;
      // the next block's indices are loaded at the top of a block, and each of its rows is loaded as
      // soon as this block's row r is dequantized, so the gather of block k + 1 streams in while
      // block k is dequantized and while the producer waits for block k + 1's stage (issuing both
      // rows after the stage's arrive instead measured 2-3 % slower, NOTES).
      uint4 v[2][9];
      uint2 scw[2];
      auto load_row = [&](int e, int r) {
        if (e < 0) return;
        const int pb = a.page_block, rr = e & ((1 << 30) - 1);
        const unsigned char* blkp = static_cast<const unsigned char*>(table_of(a, e)) + static_cast<long long>(rr / pb) * pb * 584;
        const unsigned char* data = blkp + (rr % pb) * 576;
#pragma unroll
        for (int i = 0; i < 7; ++i) v[r][i] = ldg_nc16(data + (qd + 4 * i) * 16);
#pragma unroll
        for (int i = 0; i < 2; ++i) v[r][7 + i] = ldg_nc16(data + 448 + (qd + 4 * i) * 16);
        scw[r] = *reinterpret_cast<const uint2*>(blkp + static_cast<long long>(pb) * 576 + (rr % pb) * 8);
      };
      // A column without a row (e < 0: its registers were never loaded) stores zeros: its words and scales
      // are masked to zero bits, with no branch per unit (ncu on mla-87: the per-unit branches were a
      // seventh of the producer's instructions).
      auto store_row = [&](unsigned char* dst, int e, int r) {
        const int j = jr + 32 * r;
        const uint32_t k = e >= 0 ? 0xffffffffu : 0u;
        const uint32_t s0 = scw[r].x & k, s1 = scw[r].y & k;
#pragma unroll
        for (int i = 0; i < 7; ++i) {
          // The tile's ue8m0 scale byte b as the BF16 2^(b - 127): b in the exponent field (b = 0: zero,
          // for a masked row; a real scale of 2^-127 is subnormal in BF16 and would flush the same way).
          const uint32_t sb = ((i < 4 ? s0 >> (8 * i) : s1 >> (8 * (i - 4))) & 0xFF) << 7;
          const uint32_t sbb = sb | (sb << 16);
          const __nv_bfloat162 sc2 = *reinterpret_cast<const __nv_bfloat162*>(&sbb);
          const int piece = qd + 4 * i;
          *reinterpret_cast<uint4*>(dst + sw_off(j, 2 * piece)) = dequant8(v[r][i].x & k, v[r][i].y & k, sc2);
          *reinterpret_cast<uint4*>(dst + sw_off(j, 2 * piece + 1)) = dequant8(v[r][i].z & k, v[r][i].w & k, sc2);
        }
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          const uint4 x = v[r][7 + i];
          *reinterpret_cast<uint4*>(dst + sw_off(j, 56 + qd + 4 * i)) = make_uint4(x.x & k, x.y & k, x.z & k, x.w & k);
        }
      };
      Cursor cur = first();
      int e[2] = {-1, -1};
      if (cur.valid) {
        e[0] = col_of(cur.it, cur.blk, 0);
        e[1] = col_of(cur.it, cur.blk, 1);
        load_row(e[0], 0);
        load_row(e[1], 1);
      }
      for (int gstep = 0; cur.valid; ++gstep) {
        const int st = gstep % NS;
        const Cursor nx = next(cur);
        int en[2] = {-1, -1};
        if (nx.valid) {
          en[0] = col_of(nx.it, nx.blk, 0);
          en[1] = col_of(nx.it, nx.blk, 1);
        }
        unsigned char* dst = sk + st * G::kTile;
        if (gstep >= NS) mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
        store_row(dst, e[0], 0);
        load_row(en[0], 0);
        store_row(dst, e[1], 1);
        if (qd == 0) {
          scol[st * 64 + jr] = e[0];
          scol[st * 64 + jr + 32] = e[1];
        }
        if (p == 0) snext[st] = nx.valid ? nx.item : -1;
        fence_proxy_async();
        mbar_arrive(bars + 8 * st);
        load_row(en[1], 1);
        e[0] = en[0];
        e[1] = en[1];
        cur = nx;
      }
    }
    release_queue();
    return;
  }

  // ---- consumers ------------------------------------------------------------------------------
  const int ct = tid & 127, warp = ct >> 5, lane = ct & 31, g = lane >> 2, tq = lane & 3;
  const int r0 = warp * 16 + g, r1 = r0 + 8;  // this thread's accumulator rows (heads within the CTA)
  const float scale_log2 = a.sm_scale * 1.4426950408889634f;
  const uint64_t dq = wg_desc(smem_u32(sq), 16, 1024), dp = wg_desc(smem_u32(sp), 16, 1024);
  // Q of an item (heads beyond the count zero), by warpgroup 0 alone: only its S = Q K^T reads Q.
  auto load_q = [&](const WsItem& it) {
    for (int i = ct; i < 64 * 64; i += 128) {
      const int r = i >> 6, u = i & 63, h = it.hg * 64 + r;
      const __nv_bfloat16* src = static_cast<const __nv_bfloat16*>(a.q) +
                                 (static_cast<long long>(it.t) * a.heads + (h < a.heads ? h : 0)) * 512 + u * 8;
      cp_async16_zfill(sq + sw_off(r, u), src, h < a.heads);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  auto emit = [&](const WsItem& it, const float (&o)[128], float L0, float M0, float L1, float M1) {
    // A plan's item of split -1 is its rows' only one: out and lse.
    emit_rows(a, o, it.t, it.hg * 64 + r0, it.hg * 64 + r1, it.split < 0 ? 1 : splits, it.split, wg, tq, {L0, L1}, {M0, M1}, ws_o,
              ws_ml);
  };
  if (wg == 0) {
    reg_alloc<200>();
    if (first_item >= 0) load_q(item_of(first_item));
    int gstep = 0, parity = 0, qsyncs = 0;
    for (int item = first_item; item >= 0; parity ^= 1) {
      const WsItem it = item_of(item);
      int next_item = -1;  // known at the item's last block (the producer wrote it into the stage)
      float o[128];
#pragma unroll
      for (int i = 0; i < 128; ++i) o[i] = 0.f;
      float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;  // running max (base 2), partial sums
      float* fin = sfin + parity * 128;
      asm volatile("cp.async.wait_group 0;\n" ::: "memory");
      fence_proxy_async();
      wg_mbar_sync(qbar, qsyncs++);  // this item's Q is in
      for (int blk = it.b0; blk < it.b1; ++blk, ++gstep) {
        const int st = gstep % NS;
        mbar_wait(bars + 8 * st, (gstep / NS) & 1);
        const uint32_t k_addr = smem_u32(sk + st * G::kTile);
        const uint64_t dk = wg_desc(k_addr, 16, 1024), dv = wg_desc(k_addr, 8192, 1024);
        float s[32];
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 32; ++kk) {
          const uint32_t koff = (kk >> 2) * 8192 + (kk & 3) * 32;
          wgmma_m64n64k16(s, dq + (koff >> 4), dk + (koff >> 4), kk > 0);
        }
        wg_commit();
        wg_wait0();
        fence_regs(s);
        if (blk + 1 == it.b1) {  // the last S of this item: the next item's Q streams in from here
          next_item = snext[st];
          if (next_item >= 0) {
            wg_mbar_sync(qbar, qsyncs++);  // every thread's S of this item is done with Q
            load_q(item_of(next_item));
          }
        }

        const int* cols = scol + st * 64;
        float mx0 = -INFINITY, mx1 = -INFINITY;
#pragma unroll
        for (int n = 0; n < 8; ++n)
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
        const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
        // A row with no valid column yet subtracts 0 instead of -inf: its p and alpha are exp2(-inf) = 0.
        const float z0 = n0 == -INFINITY ? 0.f : n0, z1 = n1 == -INFINITY ? 0.f : n1;
        const float al0 = ex2(m0 - z0), al1 = ex2(m1 - z1);
        m0 = n0;
        m1 = n1;
        uint32_t pa[16];  // P as BF16 pairs: the m64k16 A fragments of the four 16-column slices
        float sum0 = 0.f, sum1 = 0.f;
#pragma unroll
        for (int n = 0; n < 8; ++n) {
          const float p00 = ex2(s[4 * n] - z0), p01 = ex2(s[4 * n + 1] - z0);
          const float p10 = ex2(s[4 * n + 2] - z1), p11 = ex2(s[4 * n + 3] - z1);
          sum0 += p00 + p01;
          sum1 += p10 + p11;
          pa[2 * n] = pack_bf16(p00, p01);
          pa[2 * n + 1] = pack_bf16(p10, p11);
        }
        l0 = l0 * al0 + sum0;
        l1 = l1 * al1 + sum1;
        if (gstep > 0) named_sync(kPFree, 256);  // warpgroup 1 is done with the previous P
#pragma unroll
        for (int n = 0; n < 8; ++n) {
          *reinterpret_cast<uint32_t*>(sp + r0 * 128 + ((n ^ (r0 & 7)) << 4) + tq * 4) = pa[2 * n];
          *reinterpret_cast<uint32_t*>(sp + r1 * 128 + ((n ^ (r1 & 7)) << 4) + tq * 4) = pa[2 * n + 1];
        }
        if (tq == 0) {
          salpha[r0] = al0;
          salpha[r1] = al1;
        }
        fence_proxy_async();
        // Synced on both sides, as every named barrier here: compute-sanitizer's racecheck does not
        // order accesses across bar.arrive -> bar.sync (scripts/device/diag/named_barrier_racecheck.cu:
        // that form reports hazards on a race-free hand-off, the synced form none; NOTES).
        named_sync(kPReady, 256);
        if (!__all_sync(0xffffffffu, al0 == 1.f && al1 == 1.f)) {
#pragma unroll
          for (int n = 0; n < 32; ++n) {
            o[4 * n] *= al0;
            o[4 * n + 1] *= al0;
            o[4 * n + 2] *= al1;
            o[4 * n + 3] *= al1;
          }
        }
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          // Slice kk: columns 16 kk .. 16 kk + 15 = n chunks 2 kk (a0: row r0, a1: row r1) and 2 kk + 1 (a2, a3).
          const uint32_t af[4] = {pa[4 * kk], pa[4 * kk + 1], pa[4 * kk + 2], pa[4 * kk + 3]};
          wgmma_m64n256k16_rs_tb(o, af, dv + kk * 128, 1);
        }
        wg_commit();
        wg_wait0();
        fence_regs(o);
        mbar_arrive(bars + 8 * (NS + st));
      }
      // Row sums over the quad; warpgroup 0 holds every column's sum, warpgroup 1 takes L and M from
      // `fin` (two of them by item parity: warpgroup 1 may still read this item's while warpgroup 0
      // finishes the next).
#pragma unroll
      for (int x = 1; x <= 2; x <<= 1) {
        l0 += __shfl_xor_sync(0xffffffffu, l0, x);
        l1 += __shfl_xor_sync(0xffffffffu, l1, x);
      }
      if (tq == 0) {
        fin[r0] = l0;
        fin[r1] = l1;
        fin[64 + r0] = m0;
        fin[64 + r1] = m1;
      }
      named_sync(kFinal, 256);
      emit(it, o, l0, m0, l1, m1);
      item = next_item;
    }
  } else {
    reg_dealloc<160>();
    int gstep = 0, parity = 0;
    for (int item = first_item; item >= 0; parity ^= 1) {
      const WsItem it = item_of(item);
      int next_item = -1;
      float o[128];
#pragma unroll
      for (int i = 0; i < 128; ++i) o[i] = 0.f;
      const float* fin = sfin + parity * 128;
      for (int blk = it.b0; blk < it.b1; ++blk, ++gstep) {
        const int st = gstep % NS;
        const uint64_t dv = wg_desc(smem_u32(sk + st * G::kTile) + 4 * 8192, 8192, 1024);
        // The stage is full (complete already: warpgroup 0 waited before its S; the phase cannot move
        // on before this warpgroup releases the stage), so its data and next item are ordered here.
        mbar_wait(bars + 8 * st, (gstep / NS) & 1);
        if (blk + 1 == it.b1) next_item = snext[st];
        named_sync(kPReady, 256);
        const float al0 = salpha[r0], al1 = salpha[r1];
        if (!__all_sync(0xffffffffu, al0 == 1.f && al1 == 1.f)) {
#pragma unroll
          for (int n = 0; n < 32; ++n) {
            o[4 * n] *= al0;
            o[4 * n + 1] *= al0;
            o[4 * n + 2] *= al1;
            o[4 * n + 3] *= al1;
          }
        }
        wg_fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) wgmma_m64n256k16_tb(o, dp + kk * 2, dv + kk * 128, 1);
        wg_commit();
        wg_wait0();
        fence_regs(o);
        mbar_arrive(bars + 8 * (NS + st));
        if (blk + 1 < it.b1) named_sync(kPFree, 256);
      }
      named_sync(kFinal, 256);
      if (next_item >= 0) named_sync(kPFree, 256);  // the item's last P is released after kFinal
      emit(it, o, fin[r0], fin[64 + r0], fin[r1], fin[64 + r1]);
      item = next_item;
    }
  }

#else
  __trap();  // built without sm_90a: the launcher routes 64-head rows here only on sm_90a builds
#endif
}

}  // namespace
}  // namespace kgate::sparse_mla::gpu
