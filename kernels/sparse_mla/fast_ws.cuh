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
//   consumers have arrived on its `empty` mbarrier. FP8 rows: the e4m3 part is loaded into registers a
//   block ahead (indices two ahead) and dequantized into the stage, the RoPE part goes by cp.async
//   straight into the stage, its completion counted on the `full` mbarrier; BF16 rows go by cp.async
//   once the stage is free (also the FP8 rows the launcher dequantizes once, launch.cu);
// - warpgroup 0 holds Q (reloaded by cp.async for the next item after the item's last S) and
//   computes S = Q K^T over all 64 columns (32 x m64n64k16: Q is read once per block), the mask and
//   the online softmax on whole rows, writes P (BF16) and the rows' rescale factors to shared
//   memory for warpgroup 1, and computes O[:, 0..255] += P V with P from registers;
// - warpgroup 1 rescales its O and computes O[:, 256..511] += P V with P from shared memory.
// Named barriers, each synced by both consumer warpgroups, order P between the two (kPReady, kPFree)
// and hand warpgroup 1 the item's final L and M (kFinal). A warpgroup's own syncs (warpgroup 0's Q,
// the producer's queue slot) are mbarriers, not 128-thread named barriers: with one of those beside
// the shared ones, racecheck reports the synced hand-offs (kernels/sparse_mla/NOTES.md, "racecheck and
// named barriers"). Registers move to the consumers by
// setmaxnreg (200 / 160 / 144, the cluster's 200 / 176 / 128: the sum must stay within the 3 x 168 allocated at launch,
// or the increase waits forever). One split writes out and lse; several write the partials
// sparse_mla_fast_combine_kernel merges.
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/ws_plan.hpp"
#include "kernels/sparse_mla/device.cuh"
#include "kernels/sparse_mla/fast_wg.cuh"  // emit_rows, load_sinks, encode_col, table_of, model1_col

namespace kgate::sparse_mla::gpu {
namespace {

struct WsGeo {
  static constexpr int kThreads = 384;
  static constexpr int kStages = 2;
  static constexpr int kTile = 64 * 512 * 2;
  static constexpr int q_off = 0;
  static constexpr int k_off = kTile;
  static constexpr int p_off = k_off + kStages * kTile;       // 64 x 64 BF16, swizzled
  static constexpr int alpha_off = p_off + 64 * 128;          // 64 floats: this block's rescale per row
  static constexpr int fin_off = alpha_off + 64 * 4;          // 2 (item parity) x 2 x 64 floats: final L and M per row
  static constexpr int col_off = fin_off + 2 * 2 * 64 * 4;    // kStages x 64 ints: each staged column's row (-1: none)
  static constexpr int bar_off = col_off + kStages * 64 * 4;  // full[kStages], empty[kStages], q, grab (8 B each)
  static constexpr int meta_off = bar_off + (2 * kStages + 2) * 8;    // kStages x the next item after the stage's block
  static constexpr int grab_off = meta_off + kStages * 4;             // 2 slots: items taken from the queue
  static constexpr int kRing = 8;                                     // the producer's started items (WsRing)
  static constexpr int ring_off = (grab_off + 2 * 4 + 15) / 16 * 16;  // kRing x int4
  static constexpr int kSmem = ring_off + kRing * 16 + 1024;          // + the alignment slack of the base
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
__device__ __forceinline__ WsItem ws_item(const sparse_mla_args& a, const int* order, int item, int groups, int splits,
                                          int bps) {
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
// What the consumers need of an item (t, hg, split, b0, b1), packed by the producer into its ring of started items:
// the consumers' k-th item is the producer's k-th start, so they read slot k % kRing instead of computing the item
// again (ws_item's order and length loads, two dependent trips, sat on every item boundary of both consumer
// warpgroups, and in warpgroup 0's Q load for the next item). A slot is written (by producer thread 0, before its
// arrive on the stage whose next item it is: the full barrier orders it) at most NS + 2 steps ahead of the stage
// the slower consumer releases last, so at most kRing / 2 items ahead of a slot still read with one-block items.
__device__ __forceinline__ int4 ws_pack(const WsItem& it) {
  return make_int4(it.t, it.hg | ((it.split + 1) << 8), it.b0 | (it.b1 << 16), 0);
}
__device__ __forceinline__ WsItem ws_unpack(int4 v) {
  WsItem it{};
  it.t = v.x;
  it.hg = v.y & 255;
  it.split = (v.y >> 8) - 1;
  it.b0 = v.z & 0xffff;
  it.b1 = static_cast<int>(static_cast<unsigned>(v.z) >> 16);
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
__global__ void __launch_bounds__(256)
    sparse_mla_ws_plan_kernel(sparse_mla_args a, int groups, int parts, int overhead, int* plan) {
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
      "{\n.reg .pred p;\nWS_WAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WS_WAIT;\n}\n" ::"r"(
          bar),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void named_sync(int id, int n) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory");
}
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
// ldg_nc16 under a predicate (off: no load, v keeps whatever its registers held), and 8 bytes the same way: one
// predicated instruction, no branch. A shared-memory store of 16 bytes, as asm.
__device__ __forceinline__ void ldg_nc16_if(uint4& v, const void* p, bool on) {
  asm volatile(
      "{\n.reg .pred q;\nsetp.ne.b32 q, %5, 0;\n@q ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, "
      "[%4];\n}\n"
      : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w)
      : "l"(p), "r"(static_cast<int>(on)));
}
__device__ __forceinline__ void ldg_nc8_if(uint2& v, const void* p, bool on) {
  asm volatile("{\n.reg .pred q;\nsetp.ne.b32 q, %3, 0;\n@q ld.global.nc.v2.u32 {%0, %1}, [%2];\n}\n"
               : "+r"(v.x), "+r"(v.y)
               : "l"(p), "r"(static_cast<int>(on)));
}
__device__ __forceinline__ void sts128(void* p, uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_u32(p)), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}
// The 2-CTA cluster (the h128 FP8 rows, launch.cu): this CTA's rank, the peer's address of a shared-memory
// address of this CTA, a bulk copy into the peer's shared memory (below), an arrival on either CTA's mbarrier (the
// default .release.cta, as CUTLASS's ClusterBarrier: .release.cluster measured a membar stall of 12 % of samples), and
// a barrier of every thread of both CTAs.
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ uint32_t peer_addr(uint32_t local, uint32_t peer) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(local), "r"(peer));
  return r;
}
// bytes (a multiple of 16) of this CTA's shared memory at src into the peer's at dst (shared::cluster), one
// complete_tx of them on the peer's mbarrier bar.
__device__ __forceinline__ void bulk_to_peer(uint32_t dst, uint32_t src, uint32_t bytes, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
      "r"(src), "r"(bytes), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(bar)
               : "memory");  // as CUTLASS's ClusterBarrier::arrive
}
__device__ __forceinline__ void mbar_arrive_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// The cluster barrier with a relaxed arrive, as FlashMLA's and CUTLASS's cluster kernels use it: a release arrive
// compiles to MEMBAR.ALL.GPU (SASS), which at the kernel's end waits for every out store a thread issued. What it
// must order is ordered otherwise: at entry, the barriers' init by fence.mbarrier_init.release.cluster; at exit, every
// access into a CTA's shared memory from its peer (bulk copies into its stages, arrives on its empty barriers) by the
// producer's tail (the last releases waited for) before it arrives.
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
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
// A tile's ue8m0 scale byte b as the BF16 pair (2^(b - 127), 2^(b - 127)): b in each half's exponent field (b = 0
// reads as zero).
__device__ __forceinline__ __nv_bfloat162 scale_bf16x2(uint32_t b) {
  const uint32_t sb = (b & 0xFF) << 7, sbb = sb | (sb << 16);
  return *reinterpret_cast<const __nv_bfloat162*>(&sbb);
}

// The tokens by active 64-column blocks, most first (a counting sort; ties in any order), so the queue
// hands out the longest items first and the CTAs finish together: one CTA of any size, count a shared table of
// kOrderBuckets ints. Run by sparse_mla_ws_order_kernel, or on the dequantized-once route by the dequant pass's
// first CTA (one launch fewer).
constexpr int kOrderBuckets = 1024;
__device__ __forceinline__ void ws_order_cta(const sparse_mla_args& a, int* order, int* count) {
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
__global__ void __launch_bounds__(1024) sparse_mla_ws_order_kernel(sparse_mla_args a, int* order) {
  __shared__ int count[kOrderBuckets];
  ws_order_cta(a, order, count);
}

// The dequantized-once route (launch.cu): both FP8 tables (MODEL1 pages) as plain BF16 rows of 512 in one
// buffer (the compressed rows after the SWA rows), so the BF16 warp-specialized kernel gathers from it. A task
// is a 16-byte piece of a row: pieces 0..27 are e4m3 dims 16 k .. 16 k + 15, times their tile's scale
// (dequant8, the producer's own arithmetic, so the values are the same bits), 28..35 the RoPE dims, copied.
// Consecutive threads take consecutive pieces (loads and stores coalesce); the grid strides over the tasks. With
// order, the grid's first CTA (dispatched first, so it ends with the pass, not after it) computes the token order of
// a's tokens instead (ws_order_cta).
__global__ void __launch_bounds__(256)
    sparse_mla_dequant_kernel(const unsigned char* swa, long long swa_rows, const unsigned char* comp, long long rows,
                              int pb, uint4* dst, sparse_mla_args a, int* order) {
  __shared__ int count[kOrderBuckets];  // the token order's CTA only
  const int skip = order ? 1 : 0, ctas = static_cast<int>(gridDim.x) - skip;
  if (order && blockIdx.x == 0) {
    ws_order_cta(a, order, count);
    return;
  }
  const long long tasks = rows * 36;
  for (long long t = static_cast<long long>(static_cast<int>(blockIdx.x) - skip) * blockDim.x + threadIdx.x; t < tasks;
       t += static_cast<long long>(ctas) * blockDim.x) {
    const long long r = static_cast<long long>(static_cast<unsigned long long>(t) / 36);
    const int k = static_cast<int>(t - r * 36);
    const bool in_swa = r < swa_rows;
    const Model1Row row =
        model1_row(in_swa ? swa : comp, static_cast<uint32_t>(in_swa ? r : r - swa_rows), static_cast<uint32_t>(pb));
    uint4* o = dst + r * 64;
    if (k < 28) {
      const uint4 w = *reinterpret_cast<const uint4*>(row.data + k * 16);
      const __nv_bfloat162 sc2 = scale_bf16x2(row.scales[k >> 2]);
      o[2 * k] = dequant8(w.x, w.y, sc2);
      o[2 * k + 1] = dequant8(w.z, w.w, sc2);
    } else {
      o[56 + k - 28] = *reinterpret_cast<const uint4*>(row.data + 448 + (k - 28) * 16);
    }
  }
}

// The warp-specialized kernel's shared memory (WsGeo's layout) from its 1024-byte-aligned base.
struct WsSmem {
  unsigned char *sq, *sk, *sp;
  float *salpha, *sfin;
  int* scol;
  uint32_t bars;     // full[s] at bars + 8 s, empty[s] at bars + 8 (kStages + s)
  uint32_t qbar;     // warpgroup 0's Q
  uint32_t grabbar;  // the producer's queue slot
  int *snext, *sgrab;
  int4* sring;
};
__device__ __forceinline__ WsSmem ws_smem(unsigned char* smem) {
  using G = WsGeo;
  WsSmem S;
  S.sq = smem + G::q_off;
  S.sk = smem + G::k_off;
  S.sp = smem + G::p_off;
  S.salpha = reinterpret_cast<float*>(smem + G::alpha_off);
  S.sfin = reinterpret_cast<float*>(smem + G::fin_off);
  S.scol = reinterpret_cast<int*>(smem + G::col_off);
  S.bars = smem_u32(smem + G::bar_off);
  S.qbar = S.bars + 8 * 2 * G::kStages;
  S.grabbar = S.qbar + 8;
  S.snext = reinterpret_cast<int*>(smem + G::meta_off);
  S.sgrab = reinterpret_cast<int*>(smem + G::grab_off);
  S.sring = reinterpret_cast<int4*>(smem + G::ring_off);
  return S;
}

// A launch's work as every role sees it. A unit takes items: a CTA, or under CL a cluster (whose items are (token,
// split), the group its rank; never under the plan, whose pairs and the combine's counts are per (token, group):
// launch.cu routes no planned row there). plan: null (items (token, group, split) from the unit's index and the
// queue, or under CL every units-th) or the length-balanced plan (sparse_mla_ws_plan_kernel; CTA c takes item c, then
// items parts + plan[4 + 2 c] .. parts + plan[5 + 2 c] - 1).
template <bool CL>
struct WsWork {
  int splits, blocks_per_split;
  __nv_bfloat16* ws_o;
  float* ws_ml;
  int* queue;
  const int* order;
  const int* plan;
  uint32_t rank, peer;
  int unit, units, igroups, items;
  WsPlanLayout PL;
  const int4* pitems;
  int first_item;  // the unit's first item (-1: none), known once the barriers are initialized
  __device__ __forceinline__ WsItem item_of(const sparse_mla_args& a, int idx) const {
    WsItem it = plan ? ws_plan_item(a, pitems, idx) : ws_item(a, order, idx, igroups, splits, blocks_per_split);
    if (CL) it.hg = static_cast<int>(rank);
    return it;
  }
};
// The barriers, initialized by thread 0; under CL arrived on now and waited for where a role first touches a
// barrier (its own or the peer's): the producer before its first stage, the consumers after warpgroup 0 has issued
// Q, so the entry's global loads overlap the barrier (FlashMLA reads its schedule and issues Q between its arrive
// and wait likewise).
template <bool FP8, bool CL>
__device__ __forceinline__ void ws_init_barriers(const WsSmem& S, int tid) {
  constexpr int NS = WsGeo::kStages;
  if (tid == 0) {
    for (int s = 0; s < NS; ++s) {
      mbar_init(S.bars + 8 * s, FP8 ? 256 : 128);        // full: every producer thread (FP8: and its RoPE cp.async)
      mbar_init(S.bars + 8 * (NS + s), CL ? 264 : 256);  // empty: every consumer thread (CL: + the peer's 8 warps)
    }
    mbar_init(S.qbar, 128);
    mbar_init(S.grabbar, 128);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if (CL)
    cluster_arrive();
  else
    __syncthreads();
}
// The ring of started items in the BF16 kernel only: its rows (the dequantized-once route's) have ~4 items a CTA
// and gained 1-3 %; the FP8 rows, with one or two, measured 0.6-1.6 % slower with it (NOTES.md).
template <bool FP8>
constexpr bool kWsRingItems = !FP8;

// ---- producer -------------------------------------------------------------------------------------
// The CTA's block sequence: (item, blk), advanced by next(); not valid() past the last block. Only what the producer
// reads of an item is kept (the FP8 producer holds three cursors).
struct WsCursor {
  int item, t, blk, b1, active;
  __device__ bool valid() const { return item >= 0; }
};
// The producer's walk through its CTA's items and their blocks, and each block's columns: producer thread p (0..127)
// gathers rows jr and jr + 32 of every block.
template <bool FP8, bool CL>
struct WsFeed {
  const sparse_mla_args& a;
  const WsWork<CL> W;  // copies: held by reference, the queue's code compiled otherwise
  const WsSmem S;
  int p, jr;
  int started = 0;  // the items started: the ring's next slot
  // The CTA's next item from the queue (-1: none left): thread 0 of the producer takes each item one item ahead
  // (`ahead`, so the atomic's round trip overlaps the item before), all 128 read it (two slots: a slot is rewritten
  // two takes later, after every reader has passed the barrier between).
  int base, takes, ahead, plan_end, plan_next, static_next;
  __device__ __forceinline__ WsFeed(const sparse_mla_args& a_, const WsWork<CL>& W_, const WsSmem& S_, int p_, int jr_)
      : a(a_), W(W_), S(S_), p(p_), jr(jr_) {
    base = W.units;
    takes = 0;
    ahead = !W.plan && !CL && p == 0 && W.first_item >= 0 ? base + atomicAdd(W.queue, 1) : W.items;
    plan_end = W.plan ? W.plan[5 + 2 * W.unit] : 0;
    plan_next = W.plan ? W.plan[4 + 2 * W.unit] : 0;
    static_next = W.unit;
  }
  __device__ __forceinline__ WsCursor start(int item) {
    WsCursor c{item, 0, 0, 0, 0};
    if (item >= 0) {
      const WsItem it = W.item_of(a, item);
      if (kWsRingItems<FP8> && p == 0) S.sring[started % WsGeo::kRing] = ws_pack(it);
      ++started;
      c.t = it.t;
      c.blk = it.b0;
      c.b1 = it.b1;
      c.active = static_cast<int>(it.active);
    }
    return c;
  }
  // The raw index of row jr + 32 r of the cursor's block (-1: not loaded, the column past the item's blocks), and the
  // row it encodes (-1: none, masked; past the active columns). Issuing the index loads before the token's length is
  // in (predicate c < W instead of c < c_end, the same loads) measured 2-4 % slower on every warp-specialized row, so
  // they wait for it.
  __device__ __forceinline__ int32_t raw_of(const WsCursor& c, int r) const {
    const int col = c.blk * kWgCols + jr + 32 * r;
    if (!c.valid() || col >= min(128 + a.topk, c.b1 * kWgCols)) return -1;
    return col >= 128 ? a.compressed_indices[static_cast<long long>(c.t) * a.compressed_index_stride + (col - 128)]
                      : a.swa_indices[static_cast<long long>(c.t) * a.swa_index_stride + col];
  }
  __device__ __forceinline__ int enc_of(const WsCursor& c, int r, int32_t row) const {
    const int col = c.blk * kWgCols + jr + 32 * r;
    return c.valid() && col < c.active ? encode_col(row, col >= 128) : -1;
  }
  __device__ __forceinline__ int take() {
    if (W.plan) return plan_next < plan_end ? W.PL.parts + plan_next++ : -1;
    if (CL) return (static_next += W.units) < W.items ? static_next : -1;
    const int slot = ++takes & 1;
    if (p == 0) {
      S.sgrab[slot] = ahead;
      if (ahead < W.items) ahead = base + atomicAdd(W.queue, 1);
    }
    wg_mbar_sync(S.grabbar, takes - 1);
    return S.sgrab[slot] < W.items ? S.sgrab[slot] : -1;
  }
  __device__ __forceinline__ WsCursor first() { return start(W.first_item); }
  __device__ __forceinline__ WsCursor next(WsCursor c) {
    if (++c.blk < c.b1) return c;
    return start(take());
  }
  // After the CTA's last take: the last CTA to finish taking resets the queue for the next launch.
  __device__ __forceinline__ void release_queue() const {
    if (W.plan || CL || p != 0) return;
    __threadfence();
    if (atomicAdd(W.queue + 1, 1) == static_cast<int>(gridDim.x) - 1) {
      W.queue[0] = 0;
      W.queue[1] = 0;
      __threadfence();
    }
  }
};

// BF16 rows: each block's rows by cp.async into the stage once it is free (thread: 16-byte units u = qd + 4 i of its
// two rows).
template <bool CL>
__device__ __forceinline__ void ws_fill_bf16(const sparse_mla_args& a, const WsSmem& S, WsFeed<false, CL>& F, int p,
                                             int jr, int qd) {
  using G = WsGeo;
  constexpr int NS = G::kStages;
  unsigned char* sk = S.sk;
  int *scol = S.scol, *snext = S.snext;
  const uint32_t bars = S.bars;
  int gstep = 0;
  for (WsCursor cur = F.first(); cur.valid(); ++gstep) {
    const int st = gstep % NS;
    const WsCursor nx = F.next(cur);
    const int e[2] = {F.enc_of(cur, 0, F.raw_of(cur, 0)), F.enc_of(cur, 1, F.raw_of(cur, 1))};
    unsigned char* dst = sk + st * G::kTile;
    if (gstep >= NS) mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
      // Thread: 16-byte units u = qd + 4 i of its two rows.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const unsigned char* row = static_cast<const unsigned char*>(table_of(a, e[r])) +
                                 static_cast<long long>(e[r] < 0 ? 0 : (e[r] & ((1 << 30) - 1))) * 1024;
#pragma unroll
      for (int i = 0; i < 16; ++i)
        cp_async16_zfill(dst + sw_off(jr + 32 * r, qd + 4 * i), row + (qd + 4 * i) * 16, e[r] >= 0);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    if (qd == 0) {
      scol[st * 64 + jr] = e[0];
      scol[st * 64 + jr + 32] = e[1];
    }
    if (p == 0) snext[st] = nx.item;
    fence_proxy_async();
    mbar_arrive(bars + 8 * st);
    cur = nx;
  }
}
// FP8, software-pipelined: a row's e4m3 pieces qd + 4 i (i < 7: dims 16 (qd + 4 i) .., scale i) live in registers
// v[r] from their load until their dequant. Each piece's reload with the next block's same piece is written right
// after its store, but ptxas gathers the reloads late in the step (SASS; volatile loads, which keep their place, lost
// on the rows that gather from DRAM). The next block's row addresses are needed at the top of a step, so its indices
// are loaded raw two blocks ahead and encoded a block later. The RoPE pieces (BF16 already) go by cp.async straight
// into the stage once it is free, counted on the full barrier (cp.async.mbarrier.arrive.noinc): they hold no
// registers, and the producer never waits for them (that alone measured 8-10 % off every FP8 warp-specialized row,
// NOTES). Returns the stages filled (the cluster tail's waits).
template <bool CL>
__device__ __forceinline__ int ws_fill_fp8(const sparse_mla_args& a, const WsWork<CL>& W, const WsSmem& S,
                                           WsFeed<true, CL>& F, int p, int jr, int qd, int warp, int lane) {
  using G = WsGeo;
  constexpr int NS = G::kStages;
  unsigned char* sk = S.sk;
  int *scol = S.scol, *snext = S.snext;
  const uint32_t bars = S.bars;
  const uint32_t rank = W.rank, peer = W.peer;
  int steps = 0;
  // The rows this thread dequantizes: jr and jr + 32, or under CL jr + 32 rank (register slot 0).
  constexpr int R = CL ? 1 : 2;
  uint4 v[R][7];
  uint2 scw[R] = {};
  // Row jr + 32 h of the stage from v[r] (a column without a row, e < 0, stores zeros: its words and scales
  // are masked to zero bits, no branch per unit), each piece reloaded from row en (if any) once stored.
  auto store_reload = [&](unsigned char* dst, int e, int en, const unsigned char* ndata, const unsigned char* nscales,
                          int r, int h) {
    const int j = jr + 32 * h;
    const uint32_t k = e >= 0 ? 0xffffffffu : 0u;
    const uint32_t s0 = scw[r].x & k, s1 = scw[r].y & k;
    const bool on = en >= 0;
    ldg_nc8_if(scw[r], nscales, on);
#pragma unroll
    for (int i = 0; i < 7; ++i) {
      const __nv_bfloat162 sc2 = scale_bf16x2(i < 4 ? s0 >> (8 * i) : s1 >> (8 * (i - 4)));
      const int piece = qd + 4 * i;
      sts128(dst + sw_off(j, 2 * piece), dequant8(v[r][i].x & k, v[r][i].y & k, sc2));
      sts128(dst + sw_off(j, 2 * piece + 1), dequant8(v[r][i].z & k, v[r][i].w & k, sc2));
      ldg_nc16_if(v[r][i], ndata + (qd + 4 * i) * 16, on);
    }
  };
  WsCursor cur = F.first();
  WsCursor nx = cur.valid() ? F.next(cur) : cur;
  int e[2] = {F.enc_of(cur, 0, F.raw_of(cur, 0)), F.enc_of(cur, 1, F.raw_of(cur, 1))};
  const Model1Row c0 = model1_col(a, e[0]), c1 = model1_col(a, e[1]);
  const unsigned char *cd0 = c0.data, *cd1 = c1.data;  // this block's rows' data (the RoPE pieces go by cp.async)
  int32_t rn[2] = {F.raw_of(nx, 0), F.raw_of(nx, 1)};
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int er = CL ? (rank ? e[1] : e[0]) : e[r];
    if (er >= 0) {
      const Model1Row row = (CL ? rank : r) ? c1 : c0;
      scw[r] = *reinterpret_cast<const uint2*>(row.scales);
#pragma unroll
      for (int i = 0; i < 7; ++i) v[r][i] = ldg_nc16(row.data + (qd + 4 * i) * 16);
    }
  }
  if (CL) cluster_wait();  // the barriers of both CTAs are initialized
  for (int gstep = 0; cur.valid(); ++gstep) {
    const int st = gstep % NS;
    const WsCursor nx2 = nx.valid() ? F.next(nx) : nx;
    const int en[2] = {F.enc_of(nx, 0, rn[0]), F.enc_of(nx, 1, rn[1])};
    rn[0] = F.raw_of(nx2, 0);
    rn[1] = F.raw_of(nx2, 1);
    const Model1Row n0 = model1_col(a, en[0]), n1 = model1_col(a, en[1]);
    unsigned char* dst = sk + st * G::kTile;
    if (gstep >= NS) {
      mbar_wait(bars + 8 * (NS + st), ((gstep / NS) - 1) & 1);
    }
    // The RoPE pieces (BF16 already) straight into the stage; the full barrier counts their completion.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      cp_async16_zfill(dst + sw_off(jr, 56 + qd + 4 * i), cd0 + 448 + (qd + 4 * i) * 16, e[0] >= 0);
      cp_async16_zfill(dst + sw_off(jr + 32, 56 + qd + 4 * i), cd1 + 448 + (qd + 4 * i) * 16, e[1] >= 0);
    }
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bars + 8 * st) : "memory");
    if (CL) {
      const Model1Row& n = rank ? n1 : n0;
      store_reload(dst, rank ? e[1] : e[0], rank ? en[1] : en[0], n.data, n.scales, 0, static_cast<int>(rank));
    } else {
      store_reload(dst, e[0], en[0], n0.data, n0.scales, 0, 0);
      store_reload(dst, e[1], en[1], n1.data, n1.scales, 1, 1);
    }
    if (qd == 0) {
      scol[st * 64 + jr] = e[0];
      scol[st * 64 + jr + 32] = e[1];
    }
    if (p == 0) snext[st] = nx.item;
    fence_proxy_async();
    if (CL) {
      // The warp's 8 rows of each 64-dim chunk of the e4m3 part are one contiguous 1 KB of the swizzled tile (a
      // chunk is 64 rows of 128 B): once the warp's stores are in and visible to the async proxy (the fence
      // above), lane 0 copies them to the peer's stage, seven bulk copies counted on the peer's full barrier. A
      // warp-level sync only: no barrier across the producer's warps (racecheck cannot judge a 128-thread named
      // barrier beside the mbarriers; NOTES.md, "racecheck and named barriers").
      __syncwarp();
      if (lane == 0) {
        const uint32_t src = smem_u32(dst) + (32 * rank + 8 * warp) * 128, to = peer_addr(src, peer),
                       pbar = peer_addr(bars + 8 * st, peer);
#pragma unroll
        for (int c = 0; c < 7; ++c) bulk_to_peer(to + c * 8192, src + c * 8192, 1024, pbar);
      }
    }
    // CL: the peer's half of the rows (32 x 448 BF16) arrives as bytes on this barrier.
    if (CL && p == 0)
      mbar_arrive_tx(bars + 8 * st, 32 * 448 * 2);
    else
      mbar_arrive(bars + 8 * st);
    e[0] = en[0];
    e[1] = en[1];
    cd0 = n0.data;
    cd1 = n1.data;
    cur = nx;
    nx = nx2;
    steps = gstep + 1;
  }
  return steps;
}

// Warpgroup 2, the producer: the blocks of every item in order, through the two stages.
template <bool FP8, bool CL>
__device__ __forceinline__ void ws_producer(const sparse_mla_args& a, const WsWork<CL>& W, const WsSmem& S, int tid) {
  constexpr int NS = WsGeo::kStages;
  int steps = 0;                  // the stages filled (the tail's waits under CL)
  reg_dealloc<CL ? 128 : 144>();  // CL: one row a thread (v[1][7]); 16 registers a thread go to warpgroup 1
  const int p = tid - 256, warp = p >> 5, lane = p & 31, qd = lane >> 3;
  const int jr = warp * 8 + (lane & 7);  // this thread's rows of a block: jr and jr + 32
  WsFeed<FP8, CL> F(a, W, S, p, jr);
  if constexpr (FP8)
    steps = ws_fill_fp8<CL>(a, W, S, F, p, jr, qd, warp, lane);
  else
    ws_fill_bf16<CL>(a, S, F, p, jr, qd);
  F.release_queue();
  if (CL) {
    // The tail: the last fill of each stage released by both CTAs' consumers (the peer's arrives on this CTA's
    // barriers and its bulk copies into this CTA's stages all land before), so the relaxed arrive below is safe.
    for (int g = steps > NS ? steps - NS : 0; g < steps; ++g) mbar_wait(S.bars + 8 * (NS + g % NS), (g / NS) & 1);
    cluster_sync();
  }
}

// ---- consumers -----------------------------------------------------------------------------------
// What both consumer warpgroups hold: the thread's accumulator rows (heads within the CTA) and Q's and P's
// descriptors, with the steps both take (Q's load, a stage's release) and the epilogue's stores.
template <bool FP8, bool CL>
struct WsConsumer {
  const sparse_mla_args& a;
  const WsWork<CL>& W;
  const WsSmem& S;
  int wg, ct, warp, lane, g, tq, r0, r1;
  float scale_log2;
  uint64_t dq, dp;
  __device__ __forceinline__ WsConsumer(const sparse_mla_args& a_, const WsWork<CL>& W_, const WsSmem& S_, int tid,
                                        int wg_)
      : a(a_), W(W_), S(S_), wg(wg_) {
    ct = tid & 127;
    warp = ct >> 5;
    lane = ct & 31;
    g = lane >> 2;
    tq = lane & 3;
    r0 = warp * 16 + g;
    r1 = r0 + 8;
    scale_log2 = a.sm_scale * 1.4426950408889634f;
    dq = wg_desc(smem_u32(S.sq), 16, 1024);
    dp = wg_desc(smem_u32(S.sp), 16, 1024);
  }
  __device__ __forceinline__ WsItem item_of(int idx) const { return W.item_of(a, idx); }
  // Q of an item (heads beyond the count zero), by warpgroup 0 alone: only its S = Q K^T reads Q.
  __device__ __forceinline__ void load_q(const WsItem& it) const {
    load_q_tile(S.sq, a, it.t, it.hg, ct, 128);
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  // A stage read by this thread's warpgroup is released by every thread on its own CTA's empty barrier (CTA scope),
  // and under CL also by lane 0 of each warp, after a __syncwarp, on the peer's (cluster scope): the peer's producer
  // stores into this CTA's stage too. One cluster-scope arrive a warp for both CTAs is as correct (the warp's wgmma
  // reads are complete before lane 0 arrives), but racecheck does not follow it (hazards on the cluster rows, scol
  // write vs read); this form has none there and measured level with it (NOTES.md, "racecheck and named barriers").
  __device__ __forceinline__ void release(int st) const {
    const uint32_t bar = S.bars + 8 * (WsGeo::kStages + st);
    mbar_arrive(bar);
    if (CL) {
      __syncwarp();
      if (lane == 0) mbar_arrive_cluster(peer_addr(bar, W.peer));
    }
  }
  // The epilogue's stores of an item's rows (this warpgroup's 256 columns): a plan's item of split -1 is its rows'
  // only one, out and lse.
  __device__ __forceinline__ void emit(const WsItem& it, const float (&o)[128], float L0, float M0, float L1, float M1,
                                       float2 sinks) const {
    emit_rows<true>(a, o, it.t, it.hg * 64 + r0, it.hg * 64 + r1, it.split < 0 ? 1 : W.splits, it.split, wg, tq,
                    {L0, L1}, {M0, M1}, sinks, W.ws_o, W.ws_ml);
  }
};
// Warpgroup 0's epilogue of an item: the row sums over the quad (warpgroup 0 holds every column's sum), L and M to
// warpgroup 1 through `fin` (two of them by item parity: warpgroup 1 may still read this item's while warpgroup 0
// finishes the next), then the stores.
template <bool FP8, bool CL>
__device__ __forceinline__ void ws_epilogue_s(const WsConsumer<FP8, CL>& C, const WsItem& it, const float (&o)[128],
                                              float l0, float m0, float l1, float m1, float2 sinks, float* fin) {
  const float2 lq = quad_sum(l0, l1);
  l0 = lq.x;
  l1 = lq.y;
  if (C.tq == 0) {
    fin[C.r0] = l0;
    fin[C.r1] = l1;
    fin[64 + C.r0] = m0;
    fin[64 + C.r1] = m1;
  }
  named_sync(kFinal, 256);
  C.emit(it, o, l0, m0, l1, m1, sinks);
}
// Warpgroup 1's epilogue of an item: L and M from warpgroup 0, then the stores.
template <bool FP8, bool CL>
__device__ __forceinline__ void ws_epilogue_o(const WsConsumer<FP8, CL>& C, const WsItem& it, const float (&o)[128],
                                              const float* fin, int next_item, float2 sinks) {
  named_sync(kFinal, 256);
  if (next_item >= 0) named_sync(kPFree, 256);  // the item's last P is released after kFinal
  C.emit(it, o, fin[C.r0], fin[64 + C.r0], fin[C.r1], fin[64 + C.r1], sinks);
}
// Warpgroup 0: holds Q, computes S = Q K^T over all 64 columns of a block, the mask and the online softmax on whole
// rows, hands P and the rows' rescale factors to warpgroup 1 and computes O[:, 0..255] += P V with P from registers.
template <bool FP8, bool CL>
__device__ __forceinline__ void ws_consumer_s(const WsConsumer<FP8, CL>& C) {
  const int r0 = C.r0, r1 = C.r1;
  const int tq = C.tq;
  const float scale_log2 = C.scale_log2;
  const uint64_t dq = C.dq;
  unsigned char* sp = C.S.sp;
  float *salpha = C.S.salpha, *sfin = C.S.sfin;
  int* scol = C.S.scol;
  const uint32_t qbar = C.S.qbar;
  reg_alloc<200>();
  if (C.W.first_item >= 0) C.load_q(C.item_of(C.W.first_item));
  if (CL) cluster_wait();  // the barriers of both CTAs are initialized (Q's copies use none)
  int gstep = 0, parity = 0, qsyncs = 0;
  for (int item = C.W.first_item, k = 0; item >= 0; parity ^= 1, ++k) {
    const WsItem it = k == 0 || !kWsRingItems<FP8> ? C.item_of(item) : ws_unpack(C.S.sring[k % WsGeo::kRing]);
    const float2 sinks =
        load_sinks(C.a, it.hg * 64 + r0, it.hg * 64 + r1);  // here: at the emit their trip was on the item's path
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
      const int st = gstep % WsGeo::kStages;
      mbar_wait(C.S.bars + 8 * st, (gstep / WsGeo::kStages) & 1);
      const uint32_t k_addr = smem_u32(C.S.sk + st * WsGeo::kTile);
      const uint64_t dk = wg_desc(k_addr, 16, 1024), dv = wg_desc(k_addr, 8192, 1024);
      float s[32];
      wg_qk(s, dq, dk);
      if (blk + 1 == it.b1) {  // the last S of this item: the next item's Q streams in from here
        next_item = C.S.snext[st];
        if (next_item >= 0) {
          wg_mbar_sync(qbar, qsyncs++);  // every thread's S of this item is done with Q
          C.load_q(kWsRingItems<FP8> ? ws_unpack(C.S.sring[(k + 1) % WsGeo::kRing]) : C.item_of(next_item));
        }
      }

      float mx0 = -INFINITY, mx1 = -INFINITY;
      mask_rows_max(s, scol + st * 64, tq, scale_log2, mx0, mx1);
      const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
      const RowStep z = row_step(m0, m1, n0, n1);
      m0 = n0;
      m1 = n1;
      uint32_t pa[16];  // P as BF16 pairs: the m64k16 A fragments of the four 16-column slices
      float sum0 = 0.f, sum1 = 0.f;
#pragma unroll
      for (int n = 0; n < 8; ++n) {
        const PChunk c = p_chunk(s, n, z, sum0, sum1);
        pa[2 * n] = pack_bf16(c.p00, c.p01);
        pa[2 * n + 1] = pack_bf16(c.p10, c.p11);
      }
      l0 = l0 * z.al0 + sum0;
      l1 = l1 * z.al1 + sum1;
      if (gstep > 0) named_sync(kPFree, 256);  // warpgroup 1 is done with the previous P
#pragma unroll
      for (int n = 0; n < 8; ++n) {
        *reinterpret_cast<uint32_t*>(sp + r0 * 128 + ((n ^ (r0 & 7)) << 4) + tq * 4) = pa[2 * n];
        *reinterpret_cast<uint32_t*>(sp + r1 * 128 + ((n ^ (r1 & 7)) << 4) + tq * 4) = pa[2 * n + 1];
      }
      if (tq == 0) {
        salpha[r0] = z.al0;
        salpha[r1] = z.al1;
      }
      fence_proxy_async();
      // Synced on both sides, as every named barrier here: compute-sanitizer's racecheck does not
      // order accesses across bar.arrive -> bar.sync (a probe kernel: that form reports hazards on a
      // race-free hand-off, the synced form none; NOTES.md, "racecheck and named barriers").
      named_sync(kPReady, 256);
      rescale_o(o, z.al0, z.al1);
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
      C.release(st);
    }
    ws_epilogue_s(C, it, o, l0, m0, l1, m1, sinks, fin);
    item = next_item;
  }
}
// Warpgroup 1: rescales its O and computes O[:, 256..511] += P V with P from shared memory.
template <bool FP8, bool CL>
__device__ __forceinline__ void ws_consumer_o(const WsConsumer<FP8, CL>& C) {
  const int r0 = C.r0, r1 = C.r1;
  const uint64_t dp = C.dp;
  const float* salpha = C.S.salpha;
  float* sfin = C.S.sfin;
  if (CL)
    reg_alloc<176>();  // its release's peer address spilled 40 bytes at 160, the BF16 epilogue 8 at 168
  else
    reg_dealloc<160>();
  if (CL) cluster_wait();  // the barriers of both CTAs are initialized
  int gstep = 0, parity = 0;
  for (int item = C.W.first_item, k = 0; item >= 0; parity ^= 1, ++k) {
    const WsItem it = k == 0 || !kWsRingItems<FP8> ? C.item_of(item) : ws_unpack(C.S.sring[k % WsGeo::kRing]);
    const float2 sinks = load_sinks(C.a, it.hg * 64 + r0, it.hg * 64 + r1);
    int next_item = -1;
    float o[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) o[i] = 0.f;
    const float* fin = sfin + parity * 128;
    for (int blk = it.b0; blk < it.b1; ++blk, ++gstep) {
      const int st = gstep % WsGeo::kStages;
      const uint64_t dv = wg_desc(smem_u32(C.S.sk + st * WsGeo::kTile) + 4 * 8192, 8192, 1024);
      // The stage is full (complete already: warpgroup 0 waited before its S; the phase cannot move
      // on before this warpgroup releases the stage), so its data and next item are ordered here.
      mbar_wait(C.S.bars + 8 * st, (gstep / WsGeo::kStages) & 1);
      if (blk + 1 == it.b1) next_item = C.S.snext[st];
      named_sync(kPReady, 256);
      const float al0 = salpha[r0], al1 = salpha[r1];
      rescale_o(o, al0, al1);
      wg_pv(o, dp, dv);
      C.release(st);
      if (blk + 1 < it.b1) named_sync(kPFree, 256);
    }
    ws_epilogue_o(C, it, o, fin, next_item, sinks);
    item = next_item;
  }
}

// CL: the 2-CTA cluster of the FP8 rows of two 64-head groups (launch.cu): the cluster's CTAs are the two groups
// of one token and walk the same items (token, split) as one unit (plan or a static order; no queue). Each
// producer dequantizes half of every block's rows (row jr + 32 rank) into its own stage and, each warp by seven bulk
// copies of its rows, the peer's, whose full barrier counts those bytes; each CTA gathers all 64 rows' RoPE pieces and
// indices itself. A stage is free once this CTA's consumer threads and the peer's consumer warps have arrived on its
// empty barrier (256 + 8 arrivals).
template <bool FP8, bool CL = false>
__global__ void __launch_bounds__(384, 1)
    sparse_mla_fast_ws_kernel(sparse_mla_args a, int splits, int blocks_per_split, __nv_bfloat16* ws_o, float* ws_ml,
                              int* queue, const int* order, const int* plan) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  static_assert(!CL || FP8, "the 2-CTA cluster is the FP8 producer's");
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const WsSmem S = ws_smem(smem_raw + ((1024 - (smem_u32(smem_raw) & 1023)) & 1023));
  if (CL && plan) __trap();  // launch.cu routes no planned row to the cluster (WsWork)
  // The work, set here and not by a function: so the pointer parameters are converted to the global space at entry,
  // as before the kernel was split by role (built by a function, the conversions moved past the plan's branch).
  WsWork<CL> W{splits, blocks_per_split, ws_o, ws_ml, queue, order, plan};
  W.rank = CL ? cluster_rank() : 0u;
  W.peer = W.rank ^ 1u;
  W.unit = static_cast<int>(CL ? blockIdx.x >> 1 : blockIdx.x);
  W.units = static_cast<int>(CL ? gridDim.x >> 1 : gridDim.x);
  W.igroups = CL ? 1 : (a.heads + 63) / 64;
  W.items = a.tokens * W.igroups * splits;
  W.PL = WsPlanLayout{W.units, a.tokens * W.igroups};
  W.pitems = plan ? reinterpret_cast<const int4*>(plan + W.PL.items_off()) : nullptr;
  const int tid = threadIdx.x, wg = __shfl_sync(0xffffffffu, tid >> 7, 0);
  ws_init_barriers<FP8, CL>(S, tid);
  // The first item is the unit's index (the grid is at most the item count); the queue hands out the rest, from
  // gridDim.x up.
  W.first_item = plan ? (W.pitems[W.unit].x >= 0 ? W.unit : -1) : (W.unit < W.items ? W.unit : -1);
  if (wg == 2) {
    ws_producer<FP8, CL>(a, W, S, tid);
    return;
  }
  const WsConsumer<FP8, CL> C(a, W, S, tid, wg);
  if (wg == 0)
    ws_consumer_s(C);
  else
    ws_consumer_o(C);
  if (CL) cluster_sync();
#else
  __trap();  // built without sm_90a: the launcher routes 64-head rows here only on sm_90a builds
#endif
}

}  // namespace
}  // namespace kgate::sparse_mla::gpu
