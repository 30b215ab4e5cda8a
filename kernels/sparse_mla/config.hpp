#pragma once
// sparse_mla: the launch descriptor, printed into every row's config, and the device arms' routing, split and
// tile rules: pure functions of the launch arguments, the device facts launch.cu queries (Device) and the tuning
// overrides it reads from the environment (Tuning), so the CPU unit tests pin every decision
// (tests/unit/test_sparse_mla_config.cpp). Host only: no CUDA header.
#include <algorithm>
#include <cmath>
#include <string>

#include "harness/core/jcs.hpp"
#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/ws_plan.hpp"  // kPlanMaxTokens

namespace kgate::sparse_mla {

// The kernels' geometry the rules below depend on (the kernel headers take it from here).
constexpr int kBlk = 64;                   // sparse_mla.baseline: KV columns per block
constexpr int kHeadsPerCta = 16;           // sparse_mla.baseline: heads per CTA (mma M)
constexpr int kFastCols = 32;              // sparse_mla.fast, mma.sync path (fast.cuh): KV columns per block
constexpr int kWgCols = 64;                // sparse_mla.fast, wgmma paths (fast_wg.cuh, fast_ws.cuh): the same
constexpr int kSplitMaxCols = 128 + 1024;  // sparse_mla.fast: index columns a split may hold (its shared table)

struct Problem {
  int tokens = 0, heads = 0, topk = 0;
  bool kv_fp8 = false;

  static Problem of(const sparse_mla_args& a) { return {a.tokens, a.heads, a.topk, a.kv_fp8 != 0}; }
  int width() const { return 128 + topk; }  // index columns per token
  std::string invalid() const {
    if (tokens < 1) return "tokens: must be >= 1, got " + std::to_string(tokens);
    if (heads < 1) return "heads: must be >= 1, got " + std::to_string(heads);
    if (topk < 0) return "topk: must be >= 0, got " + std::to_string(topk);
    return "";
  }
  // Block steps of the 64-head paths: tokens x 64-head groups x 64-column blocks.
  long long block_steps() const { return static_cast<long long>(tokens) * ((heads + 63) / 64) * ((width() + 63) / 64); }
  // Whether a 64-head row (more than 32 heads, sm_90a) runs the warp-specialized kernel
  // (fast_ws.cuh) instead of the two-warpgroup lockstep one (fast_wg.cuh): from 160 block steps
  // (FP8) or 64 (BF16), about 1.2 and 0.5 per SM. Below that a row is mostly latency, and the
  // warp-specialized kernel's longer start (its producer loads the indices, then the rows) measured
  // 2-3 us slower on FP8 rows of 20-100 steps and ~1 us on BF16 rows of 10-40; from there up it
  // measured level or faster (kernels/sparse_mla/NOTES.md).
  // Re-measured with both kernels forced on the 58 h64/h128 rows: BF16 at 50 steps (5 tokens,
  // topk 512) lockstep 14.2 us vs 15.1, at 80 warp-specialized 13.7 vs 14.9.
  // FP8 from 80 steps too when they are 40 or more (token, 64-head group) pairs (about 0.3 per SM; 40 pairs are
  // at least 80 steps, so the pair count decides), measured on pairs of two blocks:
  // there the warp-specialized kernel runs one unsplit item per pair, where the lockstep one splits and pays a
  // combine kernel; both forced on the 28 FlashMLA rows: rows of 40 pairs x 2 blocks 13.5 us against 14.5 (h64)
  // and 12.7 against 14.2 (h128), while rows of 5-20 pairs lost 0.4-5 us.
  long long pairs() const { return static_cast<long long>(tokens) * ((heads + 63) / 64); }
  bool warp_specialized() const {
    if (heads <= 32) return false;
    return kv_fp8 ? block_steps() >= 160 || (block_steps() >= 80 && pairs() >= 40) : block_steps() >= 64;
  }
  json to_json() const {
    return {{"tokens", tokens}, {"heads", heads}, {"topk", topk}, {"kv_dtype", kv_fp8 ? "fp8" : "bf16"}};
  }
};

// What launch.cu queries of the current device: its SM count and whether it runs the sm_90a wgmma kernels.
struct Device {
  int sms = 132;
  bool wgmma = true;
};
// Tuning overrides (tuning runs only; each row's rule names the one in force), read from the environment by
// launch.cu (tuning_from_env): 0 where a variable is unset or not one of its values.
struct Tuning {
  char path = 0;     // KGATE_SPARSE_MLA_FAST_PATH: 'w' (lockstep) or 's' (warp-specialized) on every wgmma row
  int splits = 0;    // KGATE_SPARSE_MLA_FAST_SPLITS=N: the smallest valid split count >= N
  char plan = 0;     // KGATE_SPARSE_MLA_WS_PLAN: '0' or '1', the length-balanced plan off or on
  char cluster = 0;  // KGATE_SPARSE_MLA_CLUSTER: '0' or '1', the 2-CTA cluster off or on for its rows
  char dequant = 0;  // KGATE_SPARSE_MLA_DEQUANT: '0' or '1', the dequantized-once route off or on
  int overhead = 3;  // KGATE_SPARSE_MLA_WS_OVERHEAD: the plan's blocks of fixed cost per segment
};

// sparse_mla.baseline's split-KV: as many 64-column blocks per split as keep about two CTAs per SM busy (132 SMs).
struct Splits {
  int splits, blocks_per_split, groups;
};
inline Splits baseline_splits(const sparse_mla_args& a) {
  const int nblocks = (128 + a.topk + kBlk - 1) / kBlk, groups = (a.heads + kHeadsPerCta - 1) / kHeadsPerCta;
  const long long ctas = static_cast<long long>(a.tokens) * groups;
  const int want = static_cast<int>(std::max<long long>(1, std::min<long long>(nblocks, (264 + ctas - 1) / ctas)));
  const int bps = (nblocks + want - 1) / want;
  return {(nblocks + bps - 1) / bps, bps, groups};
}

// sparse_mla.fast's routing, a pure function of the row descriptor and of whether the device runs
// the sm_90a wgmma path:
// - more than 32 heads on sm_90a, from Problem::warp_specialized()'s block steps and pairs: the
//   warp-specialized kernel (fast_ws.cuh), work items of 64 heads x a split of 64-column blocks on
//   a persistent grid (at most one CTA per SM); the split count minimizes a cost in microseconds:
//   6 + waves of items x (blocks per split x step + 1) + the combine and traffic below when split,
//   the step 3.0 us (FP8) or 2.6 us (BF16), first estimates from the kernel's first measurements
//   (NOTES.md); items past a token's active columns are cut (fast_ws.cuh),
//   which this cost, a function of the widths only, does not see; FP8 rows whose tables are
//   gathered many times over first dequantize them once and run the BF16 kernel (dequant_route below);
// - other rows of more than 32 heads on sm_90a: the lockstep wgmma path (fast_wg.cuh), 64 heads x
//   64-column blocks per CTA; the split count minimizes a cost in microseconds: waves x (prologue + blocks per split x
//   step) + the combine (1.7 + 0.5 x splits us) and the partials' traffic (splits x tokens x heads
//   x 4 KB, written and read, at ~10 TB/s: L2) when split. Step and prologue fitted to the first
//   measurement of this path (kernels/sparse_mla/NOTES.md): a 64-column step 3.9 us (BF16), 4.8 us
//   (FP8, its dequant overlapped with the next gather), the prologue and epilogue 7 us;
// - otherwise the mma.sync path (fast.cuh): 1, 2 or 4 tiles of 16 heads (the fewest that hold
//   the heads), 32-column blocks, cost in units of one block step: waves x blocks per split, plus,
//   when split, the combine and the partials' traffic (fp32, written and read: splits x tokens x
//   heads x 4 KB). 64-head CTAs (HT = 4): fitted to this path's 94-row receipt: a step 4.25 us,
//   the combine 0.4 + 0.12 x splits steps, the traffic at ~10 TB/s (it stays in L2). Smaller CTAs
//   keep the first fit's constants (step 4.5 us, combine 1 step, traffic at 3 TB/s).
// The partials are BF16 now (2 KB a row and split, written and read); the traffic terms keep the 4 KB of the fp32
// partials they were fitted with, so the split counts are the ones measured with fp32 partials.
// At most 1152 index columns per split (the shared-memory index table). The waves count 132 SMs whatever the device:
// the constants were fitted so.
struct FastPlan {
  bool wg, ws;
  int ht, groups, splits, blocks_per_split, cols;
  double cost;
  const char* rule;
};
// The cost of s splits of bps blocks each (p's path and geometry set).
inline double fast_cost(const sparse_mla_args& a, const FastPlan& p, int s, int bps) {
  const long long base = static_cast<long long>(a.tokens) * p.groups, wave = 132;
  const double step_us = a.kv_fp8 ? 4.8 : 3.9, prologue_us = 7.0;
  const double waves = static_cast<double>((base * s + wave - 1) / wave);
  const bool wide = p.ht == 4;
  const double traffic_us = static_cast<double>(s) * a.tokens * a.heads * 4096.0 * 2 / (wide ? 1e7 : 3e6);
  if (p.ws) return 6.0 + waves * (bps * (a.kv_fp8 ? 3.0 : 2.6) + 1.0) + (s > 1 ? 1.7 + 0.5 * s + traffic_us / 2 : 0.0);
  if (p.wg) return waves * (prologue_us + bps * step_us) + (s > 1 ? 1.7 + 0.5 * s + traffic_us / 2 : 0.0);
  return waves * bps + (s > 1 ? (wide ? 0.4 + 0.12 * s : 1.0) + traffic_us / (wide ? 4.25 : 4.5) : 0.0);
}
inline FastPlan fast_plan(const sparse_mla_args& a, bool wgmma, const Tuning& tu) {
  FastPlan p{};
  p.wg = wgmma && a.heads > 32;
  p.ws = p.wg && Problem::of(a).warp_specialized();
  const bool forced_path = p.wg && (tu.path == 'w' || tu.path == 's');
  if (forced_path) p.ws = tu.path == 's';
  p.ht = a.heads <= 16 ? 1 : a.heads <= 32 ? 2 : 4;
  p.groups = (a.heads + 16 * p.ht - 1) / (16 * p.ht);
  p.cols = p.wg ? kWgCols : kFastCols;
  const int nblocks = (128 + a.topk + p.cols - 1) / p.cols, max_bps = kSplitMaxCols / p.cols;
  p.cost = INFINITY;
  for (int s = (nblocks + max_bps - 1) / max_bps; s <= nblocks; ++s) {
    const int bps = (nblocks + s - 1) / s;
    if ((nblocks + bps - 1) / bps != s) continue;  // the same blocks per split as a smaller s
    if (const double cost = fast_cost(a, p, s, bps); cost < p.cost) {
      p.cost = cost;
      p.splits = s;
      p.blocks_per_split = bps;
    }
  }
  p.rule = p.splits == 1 ? "one split (cost model): out and lse written by the CTA"
                         : "split by the cost model (waves x blocks + combine + partials); combine kernel";
  if (forced_path)
    p.rule = p.ws ? "path forced to ws by KGATE_SPARSE_MLA_FAST_PATH (tuning run)"
                  : "path forced to wg by KGATE_SPARSE_MLA_FAST_PATH (tuning run)";
  for (int s = std::min(tu.splits, nblocks); tu.splits > 0 && s <= nblocks; ++s) {
    const int bps = (nblocks + s - 1) / s;
    if ((nblocks + bps - 1) / bps != s || bps > max_bps) continue;
    p.splits = s;
    p.blocks_per_split = bps;
    p.rule = "split count forced by KGATE_SPARSE_MLA_FAST_SPLITS (tuning run)";
    break;
  }
  return p;
}

// The warp-specialized kernel's (token, 64-head group) pairs and 64-column blocks per token.
inline int ws_pairs(const sparse_mla_args& a) { return static_cast<int>(Problem::of(a).pairs()); }
inline int wg_blocks(const sparse_mla_args& a) { return (128 + a.topk + kWgCols - 1) / kWgCols; }
// The 2-CTA cluster (fast_ws.cuh, CL): the FP8 rows of two 64-head groups (65-128 heads) that the plan and the
// dequantized-once route leave to the FP8 producer (e.g. 40 tokens of 2 or 10 blocks). The cluster's CTAs
// are one token's two groups and share the dequant of every block (each producer half the rows, as FlashMLA's h128
// kernel does), so the unit of work is the cluster: items (token, split), every units-th (tokens by active length,
// longest first, from two items per unit), at most as many clusters as can be resident at once
// (cudaOccupancyMaxActiveClusters, at most SMs / 2); no queue. The planned rows keep one CTA a unit (measured mixed
// under the cluster; kernels/sparse_mla/NOTES.md).
inline bool ws_cluster_row(const sparse_mla_args& a, const FastPlan& p) {
  return p.ws && a.kv_fp8 && (a.heads + 63) / 64 == 2;
}
// Items and units (CTAs, or clusters under the cluster) of the warp-specialized kernel's queue or static order;
// max_units: the SMs, or under the cluster the clusters resident at once (launch.cu's ws_cluster_units).
inline long long ws_items(const sparse_mla_args& a, const FastPlan& p, bool cl) {
  return static_cast<long long>(a.tokens) * (cl ? 1 : p.groups) * p.splits;
}
inline int ws_units(const sparse_mla_args& a, const FastPlan& p, bool cl, int max_units) {
  return static_cast<int>(std::min<long long>(ws_items(a, p, cl), max_units));
}
// Whether the queue hands out tokens by active length, longest first (a sort kernel before, ~3 us):
// from two items per CTA, where a short item taken last no longer hides a long one.
inline bool ws_sorted(const sparse_mla_args& a, const FastPlan& p, bool cl, int max_units) {
  return ws_items(a, p, cl) >= 2LL * ws_units(a, p, cl, max_units);
}
// The length-balanced plan (fast_ws.cuh, sparse_mla_ws_plan_kernel) replaces the (token, group,
// split) items of equal width and the queue where the cost model splits a row of few (token, 64-head
// group) pairs (fewer than two per SM): one wave of equal splits waits for the longest token when the
// lengths are ragged, and the split row pays a combine kernel either way. Its partitions (the grid)
// are at most the pairs x half their blocks, so no segment is planned shorter than two blocks but a
// pair's first and last. Tuning.plan forces it off or on for every warp-specialized row it can run;
// Tuning.overhead sets the blocks of fixed cost per segment.
inline bool ws_planned(const sparse_mla_args& a, const FastPlan& p, int sms, const Tuning& tu) {
  if (!p.ws || a.tokens > kPlanMaxTokens || (a.heads + 63) / 64 > 256 || wg_blocks(a) >= 65536) return false;
  if (tu.plan) return tu.plan == '1';
  return p.splits > 1 && ws_pairs(a) < 2 * sms;
}
inline int ws_parts(const sparse_mla_args& a, int sms) {
  return static_cast<int>(std::min<long long>(sms, static_cast<long long>(ws_pairs(a)) * ((wg_blocks(a) + 1) / 2)));
}
// The dequantized-once route: an FP8 row whose tables are gathered many times over (prefill; decode batches
// whose requests share small caches) dequantizes its whole tables (the SWA table and, with topk > 0, the
// compressed one) to BF16 rows first (sparse_mla_dequant_kernel) and runs the BF16 warp-specialized kernel on
// them, whose producer only copies: the FP8 producer's dequant is the step's limit there (NOTES). Taken where the
// cost model's saving, ~0.7 us a block step per CTA, beats the pass's traffic (584 B read + 1024 B written a table
// row at ~3 TB/s) plus ~1.5 us, and the BF16 tables fit in 64 MB. Tuning.dequant forces it off or on for every FP8
// row of the warp-specialized kernel.
inline long long table_rows(const sparse_mla_args& a) { return a.swa_rows + (a.topk > 0 ? a.compressed_rows : 0); }
inline bool dequant_route(const sparse_mla_args& a, const FastPlan& p, int sms, const Tuning& tu) {
  if (!p.ws || !a.kv_fp8 || table_rows(a) < 1 || table_rows(a) * 1024 > (64LL << 20)) return false;
  if (tu.dequant) return tu.dequant == '1';
  const double steps = std::ceil(static_cast<double>(Problem::of(a).block_steps()) / sms);
  return 0.7 * steps > 1.5 + table_rows(a) * 1608.0 / 3.0e6;
}
// Whether a routed row's dequant pass also computes the sorted queue's token order (sparse_mla_dequant_kernel's first
// CTA): a sorted queue, and at most 4096 tokens, since the pass's 256-thread CTA walks the tokens 4 times as often as
// the order kernel's 1024 threads and would outlast the pass on long rows.
inline bool pass_sorts(const sparse_mla_args& a, const FastPlan& p, int sms, const Tuning& tu) {
  return p.ws && !ws_planned(a, p, sms, tu) && ws_sorted(a, p, false, sms) && a.tokens <= 4096;
}
// A row's route through sparse_mla.fast, derived once for both its config and its launch: a is a0 with kv_fp8 off
// on the dequantized-once route (the launch swaps in the BF16 tables), p the plan of the kernel that runs (the BF16
// kernel's on the route), planned the length-balanced plan, ordered whether the dequant pass sorts the tokens too, cl
// the 2-CTA cluster; dev and tu as the route was derived with.
struct FastRoute {
  sparse_mla_args a;
  FastPlan p;
  bool deq, planned, ordered, cl;
  Device dev;
  Tuning tu;
};
inline FastRoute fast_route(const sparse_mla_args& a0, const Device& dev, const Tuning& tu) {
  FastRoute r{a0, fast_plan(a0, dev.wgmma, tu), false, false, false, false, dev, tu};
  r.deq = dequant_route(a0, r.p, dev.sms, tu);
  if (r.deq) {
    r.a.kv_fp8 = 0;
    r.p = fast_plan(r.a, dev.wgmma, tu);
  }
  r.planned = ws_planned(r.a, r.p, dev.sms, tu);
  r.ordered = r.deq && pass_sorts(r.a, r.p, dev.sms, tu);
  r.cl = !r.planned && ws_cluster_row(r.a, r.p) && (tu.cluster ? tu.cluster == '1' : true);
  return r;
}

}  // namespace kgate::sparse_mla
