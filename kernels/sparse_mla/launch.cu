// sparse_mla GPU launchers: validation at the boundary and the dispatch of each arm's kernel.
// Kernels: floor.cuh. Conventions: references/sparse_mla/sparse_mla.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/gpu/check.hpp"
#include "kernels/sparse_mla/baseline.cuh"
#include "kernels/sparse_mla/fast.cuh"
#include "kernels/sparse_mla/fast_wg.cuh"
#include "kernels/sparse_mla/fast_ws.cuh"
#include "kernels/sparse_mla/floor.cuh"
#include "kernels/sparse_mla/launch.hpp"

namespace kgate::sparse_mla::gpu {

void validate(const sparse_mla_args& a, const char* arm) {
  const std::string who = std::string("sparse_mla: ") + arm + ": ";
  if (std::string why = Problem::of(a).invalid(); !why.empty()) throw InputError(who + why);
  if (a.q_rows < a.tokens) throw InputError(who + "q_rows must be >= tokens");
  if (!a.q || !a.swa_kv || !a.swa_indices || !a.lens || !a.out || !a.lse)
    throw InputError(who + "q, swa_kv, swa_indices, lens, out and lse are required");
  if (a.topk > 0 && (!a.compressed_kv || !a.compressed_indices))
    throw InputError(who + "topk > 0 needs compressed_kv and compressed_indices");
  if (a.kv_fp8 && (a.page_block < 2 || a.page_block % 2))
    throw InputError(who + "page_block must be even and >= 2 (8-byte aligned MODEL1 blocks)");
  if (a.kv_fp8 && (a.swa_rows % a.page_block || (a.topk > 0 && a.compressed_rows % a.page_block)))
    throw InputError(who +
                     "FP8 tables must be whole page blocks (swa_rows and compressed_rows multiples of page_block)");
  for (const void* p : std::initializer_list<const void*>{a.q, a.swa_kv, a.compressed_kv, a.out})
    if (reinterpret_cast<uintptr_t>(p) % 16) throw InputError(who + "q, KV tables and out must be 16-byte aligned");
}

void launch_floor(const sparse_mla_args& a, cudaStream_t s) {
  validate(a, "sparse_mla.floor");
  const dim3 grid((128 + a.topk + kFloorCols - 1) / kFloorCols, a.tokens);
  sparse_mla_floor_kernel<<<grid, kFloorThreads, 0, s>>>(a);
}

namespace {

// Split-KV: as many 64-column blocks per split as keep about two CTAs per SM busy (132 SMs).
struct Splits {
  int splits, blocks_per_split, groups;
};
Splits baseline_splits(const sparse_mla_args& a) {
  const int nblocks = (128 + a.topk + kBlk - 1) / kBlk, groups = (a.heads + kHeadsPerCta - 1) / kHeadsPerCta;
  const long long ctas = static_cast<long long>(a.tokens) * groups;
  const int want = static_cast<int>(std::max<long long>(1, std::min<long long>(nblocks, (264 + ctas - 1) / ctas)));
  const int bps = (nblocks + want - 1) / want;
  return {(nblocks + bps - 1) / bps, bps, groups};
}

// sparse_mla.fast's routing, a pure function of the row descriptor and of whether the device runs
// the sm_90a wgmma path:
// - more than 32 heads on sm_90a, from Problem::warp_specialized()'s block steps and pairs (config.hpp): the
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
// At most 1152 index columns per split (the shared-memory index table).
struct FastPlan {
  bool wg, ws;
  int ht, groups, splits, blocks_per_split, cols;
  double cost;
  const char* rule;
};
FastPlan fast_plan(const sparse_mla_args& a, bool wgmma) {
  FastPlan p{};
  p.wg = wgmma && a.heads > 32;
  p.ws = p.wg && Problem::of(a).warp_specialized();
  // Tuning only (the receipts' rule names it): KGATE_SPARSE_MLA_FAST_PATH=wg|ws forces the lockstep or
  // the warp-specialized kernel on every row that runs wgmma.
  const char* forced_path = std::getenv("KGATE_SPARSE_MLA_FAST_PATH");
  if (p.wg && forced_path && (std::string(forced_path) == "wg" || std::string(forced_path) == "ws"))
    p.ws = std::string(forced_path) == "ws";
  else
    forced_path = nullptr;
  p.ht = a.heads <= 16 ? 1 : a.heads <= 32 ? 2 : 4;
  p.groups = (a.heads + 16 * p.ht - 1) / (16 * p.ht);
  p.cols = p.wg ? kWgCols : kFastCols;
  const int nblocks = (128 + a.topk + p.cols - 1) / p.cols, max_bps = FastGeo<1>::kMaxCols / p.cols;
  const long long base = static_cast<long long>(a.tokens) * p.groups, wave = 132;
  const double step_us = a.kv_fp8 ? 4.8 : 3.9, prologue_us = 7.0;
  p.cost = INFINITY;
  for (int s = (nblocks + max_bps - 1) / max_bps; s <= nblocks; ++s) {
    const int bps = (nblocks + s - 1) / s;
    if ((nblocks + bps - 1) / bps != s) continue;  // the same blocks per split as a smaller s
    const double waves = static_cast<double>((base * s + wave - 1) / wave);
    const bool wide = p.ht == 4;
    const double traffic_us = static_cast<double>(s) * a.tokens * a.heads * 4096.0 * 2 / (wide ? 1e7 : 3e6);
    double cost;
    if (p.ws)
      cost = 6.0 + waves * (bps * (a.kv_fp8 ? 3.0 : 2.6) + 1.0) + (s > 1 ? 1.7 + 0.5 * s + traffic_us / 2 : 0.0);
    else if (p.wg)
      cost = waves * (prologue_us + bps * step_us) + (s > 1 ? 1.7 + 0.5 * s + traffic_us / 2 : 0.0);
    else
      cost = waves * bps + (s > 1 ? (wide ? 0.4 + 0.12 * s : 1.0) + traffic_us / (wide ? 4.25 : 4.5) : 0.0);
    if (cost < p.cost) {
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
  // Tuning only (the receipts' rule names it): KGATE_SPARSE_MLA_FAST_SPLITS=N takes the smallest
  // valid split count >= N (clamped to the row's blocks), to measure the cost model's choices.
  if (const char* e = std::getenv("KGATE_SPARSE_MLA_FAST_SPLITS"); e && std::atoi(e) > 0) {
    for (int s = std::min(std::atoi(e), nblocks); s <= nblocks; ++s) {
      const int bps = (nblocks + s - 1) / s;
      if ((nblocks + bps - 1) / bps != s || bps > max_bps) continue;
      p.splits = s;
      p.blocks_per_split = bps;
      p.rule = "split count forced by KGATE_SPARSE_MLA_FAST_SPLITS (tuning run)";
      break;
    }
  }
  return p;
}

// Whether the current device runs fast_wg.cuh's kernels: compute capability 9.0 (this build's
// sm_90a code); cached per device.
bool wgmma_device() {
  static int cache[64] = {};  // 0 unknown, 1 yes, 2 no
  int dev = 0;
  KGATE_CUDA(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) return false;
  if (!cache[dev]) {
    int major = 0, minor = 0;
    KGATE_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    KGATE_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    cache[dev] = major == 9 && minor == 0 ? 1 : 2;
  }
  return cache[dev] == 1;
}

// The current device's SM count, cached per device.
int sm_count() {
  static int cache[64] = {};
  int dev = 0;
  KGATE_CUDA(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) return 132;
  if (!cache[dev]) KGATE_CUDA(cudaDeviceGetAttribute(&cache[dev], cudaDevAttrMultiProcessorCount, dev));
  return cache[dev];
}

// A device buffer grown on first need (the first call is the correctness check, before any timing) and kept
// for the process: the split partials' workspace, the dequantized-once route's BF16 tables.
struct Grown {
  void* p = nullptr;
  size_t have = 0;
};
void* grow(Grown& g, size_t bytes) {
  if (bytes > g.have) {
    if (g.p) KGATE_CUDA(cudaFree(g.p));
    KGATE_CUDA(cudaMalloc(&g.p, bytes));
    g.have = bytes;
  }
  return g.p;
}
void* workspace(size_t bytes) {
  static Grown g;
  return grow(g, bytes);
}

// The current device as an index into the per-device caches below (64 of them).
int device_slot() {
  int dev = 0;
  KGATE_CUDA(cudaGetDevice(&dev));
  if (dev < 0 || dev >= 64) throw InputError("sparse_mla: sparse_mla.fast: device ordinal out of range");
  return dev;
}
// A kernel's dynamic shared-memory limit raised to bytes, once per device (the attribute belongs to the device's
// context: set once per process, a launch on a second device would fail); done: the kernel's own flags.
void raise_smem(const void* kernel, int bytes, bool (&done)[64]) {
  bool& d = done[device_slot()];
  if (!d) {
    KGATE_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    d = true;
  }
}

// The warp-specialized kernel's item queue (next item, CTAs done taking), per device: zeroed when
// made (on the first call, the correctness check), reset by the last CTA of every launch. One
// stream at a time per process: two launches in flight at once would share the counter.
// The token order of the sorted launches (sparse_mla_ws_order_kernel), per device, grown on first
// need (the first call is the correctness check, before any timing) and kept for the process.
struct DeviceInts {
  int* p = nullptr;
  size_t n = 0;
};
int* device_ints(DeviceInts (&cache)[64], size_t n, bool zero) {
  DeviceInts& c = cache[device_slot()];
  if (n > c.n) {
    if (c.p) KGATE_CUDA(cudaFree(c.p));
    KGATE_CUDA(cudaMalloc(&c.p, n * sizeof(int)));
    if (zero) {
      KGATE_CUDA(cudaMemset(c.p, 0, n * sizeof(int)));
      KGATE_CUDA(cudaDeviceSynchronize());  // the memset runs on the legacy stream: done before any arm's stream reads
    }
    c.n = n;
  }
  return c.p;
}
int* ws_queue() {
  static DeviceInts cache[64];
  return device_ints(cache, 2, true);
}
int* ws_order(int tokens) {
  static DeviceInts cache[64];
  return device_ints(cache, static_cast<size_t>(tokens), false);
}

json baseline_config(const sparse_mla_args& a) {
  const Splits sp = baseline_splits(a);
  return {{"kernel", "sparse_mla_baseline_kernel"},
          {"grid", {sp.splits, sp.groups, a.tokens}},
          {"threads", kBaseThreads},
          {"smem_bytes", kBaseSmem},
          {"blocks_per_split", sp.blocks_per_split},
          {"rule", "16 heads x one split of 64-column blocks per CTA; splits for ~2 CTAs per SM; combine kernel"},
          {"problem", Problem::of(a).to_json()}};
}

json floor_config(const sparse_mla_args& a) {
  return {{"kernel", "sparse_mla_floor_kernel"},
          {"grid", {(128 + a.topk + kFloorCols - 1) / kFloorCols, a.tokens, 1}},
          {"threads", kFloorThreads},
          {"rule", "one CTA per (token, 64 index columns); reads the active valid rows, q; writes out and lse"},
          {"problem", Problem::of(a).to_json()}};
}
}  // namespace

void launch_baseline(const sparse_mla_args& a, cudaStream_t s) {
  validate(a, "sparse_mla.baseline");
  static bool done[64];
  raise_smem(reinterpret_cast<const void*>(&sparse_mla_baseline_kernel), kBaseSmem, done);
  const Splits sp = baseline_splits(a);
  const size_t parts = static_cast<size_t>(a.tokens) * sp.groups * sp.splits * kHeadsPerCta;
  float* ws = static_cast<float*>(workspace(parts * (512 + 2) * 4));
  float* ws_ml = ws + parts * 512;
  sparse_mla_baseline_kernel<<<dim3(sp.splits, sp.groups, a.tokens), kBaseThreads, kBaseSmem, s>>>(
      a, sp.splits, sp.blocks_per_split, ws, ws_ml);
  sparse_mla_combine_kernel<<<dim3(a.heads, a.tokens), 128, 0, s>>>(a, sp.splits, ws, ws_ml);
}

namespace {
template <int HT>
void fast_launch_as(const sparse_mla_args& a, const FastPlan& p, __nv_bfloat16* ws, float* ws_ml, cudaStream_t s) {
  static bool done[64];
  raise_smem(reinterpret_cast<const void*>(&sparse_mla_fast_kernel<HT>), FastGeo<HT>::kSmem, done);
  sparse_mla_fast_kernel<HT><<<dim3(p.splits, p.groups, a.tokens), FastGeo<HT>::kThreads, FastGeo<HT>::kSmem, s>>>(
      a, p.splits, p.blocks_per_split, ws, ws_ml);
}
template <bool FP8>
void fast_wg_launch_as(const sparse_mla_args& a, const FastPlan& p, __nv_bfloat16* ws, float* ws_ml, cudaStream_t s) {
  static bool done[64];
  raise_smem(reinterpret_cast<const void*>(&sparse_mla_fast_wg_kernel<FP8>), WgGeo<FP8>::kSmem, done);
  sparse_mla_fast_wg_kernel<FP8><<<dim3(p.splits, p.groups, a.tokens), WgGeo<FP8>::kThreads, WgGeo<FP8>::kSmem, s>>>(
      a, p.splits, p.blocks_per_split, ws, ws_ml);
}
// The persistent grid of the warp-specialized path: one CTA per SM at most, items from the queue.
// The 2-CTA cluster (fast_ws.cuh, CL): the FP8 rows of two 64-head groups (65-128 heads) that the plan and the
// dequantized-once route leave to the FP8 producer (e.g. 40 tokens of 2 or 10 blocks). The cluster's CTAs
// are one token's two groups and share the dequant of every block (each producer half the rows, as FlashMLA's h128
// kernel does), so the unit of work is the cluster: items (token, split), every units-th (tokens by active length,
// longest first, from two items per unit), at most as many clusters as can be resident at once
// (cudaOccupancyMaxActiveClusters, at most SMs / 2); no queue. The planned rows keep one CTA a unit (measured mixed
// under the cluster; kernels/sparse_mla/NOTES.md).
// Tuning only (the receipts' rule names it): KGATE_SPARSE_MLA_CLUSTER=0|1 forces it off or on for those rows.
const char* ws_cluster_forced() {
  const char* e = std::getenv("KGATE_SPARSE_MLA_CLUSTER");
  return e && (std::string(e) == "0" || std::string(e) == "1") ? e : nullptr;
}
bool ws_cluster_row(const sparse_mla_args& a, const FastPlan& p) {
  return p.ws && a.kv_fp8 && (a.heads + 63) / 64 == 2;
}
const cudaLaunchAttribute* cluster_attr() {
  static const cudaLaunchAttribute at = [] {
    cudaLaunchAttribute x{};
    x.id = cudaLaunchAttributeClusterDimension;
    x.val.clusterDim.x = 2;
    x.val.clusterDim.y = 1;
    x.val.clusterDim.z = 1;
    return x;
  }();
  return &at;
}
template <bool FP8, bool CL>
void ws_raise_smem() {
  static bool done[64];
  raise_smem(reinterpret_cast<const void*>(&sparse_mla_fast_ws_kernel<FP8, CL>), WsGeo::kSmem, done);
}
cudaLaunchConfig_t cluster_config(int ctas, cudaStream_t s) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(ctas, 1, 1);
  cfg.blockDim = dim3(WsGeo::kThreads, 1, 1);
  cfg.dynamicSmemBytes = WsGeo::kSmem;
  cfg.stream = s;
  cfg.attrs = const_cast<cudaLaunchAttribute*>(cluster_attr());
  cfg.numAttrs = 1;
  return cfg;
}
// Clusters resident at once, per device (at most SMs / 2).
int ws_cluster_units() {
  static int cache[64] = {};
  int& c = cache[device_slot()];
  if (!c) {
    ws_raise_smem<true, true>();
    const cudaLaunchConfig_t cfg = cluster_config(2 * (sm_count() / 2), nullptr);
    int n = 0;
    KGATE_CUDA(cudaOccupancyMaxActiveClusters(&n, &sparse_mla_fast_ws_kernel<true, true>, &cfg));
    c = std::max(1, std::min(n, sm_count() / 2));
  }
  return c;
}
// Items and units (CTAs, or clusters under the cluster) of the warp-specialized kernel's queue or static order.
long long ws_items(const sparse_mla_args& a, const FastPlan& p, bool cl) {
  return static_cast<long long>(a.tokens) * (cl ? 1 : p.groups) * p.splits;
}
int ws_units(const sparse_mla_args& a, const FastPlan& p, bool cl) {
  return static_cast<int>(std::min<long long>(ws_items(a, p, cl), cl ? ws_cluster_units() : sm_count()));
}
// Whether the queue hands out tokens by active length, longest first (a sort kernel before, ~3 us):
// from two items per CTA, where a short item taken last no longer hides a long one.
bool ws_sorted(const sparse_mla_args& a, const FastPlan& p, bool cl) {
  return ws_items(a, p, cl) >= 2LL * ws_units(a, p, cl);
}
// The length-balanced plan (fast_ws.cuh, sparse_mla_ws_plan_kernel) replaces the (token, group,
// split) items of equal width and the queue where the cost model splits a row of few (token, 64-head
// group) pairs (fewer than two per SM): one wave of equal splits waits for the longest token when the
// lengths are ragged, and the split row pays a combine kernel either way. Its partitions (the grid)
// are at most the pairs x half their blocks, so no segment is planned shorter than two blocks but a
// pair's first and last. Tuning only (the receipts' rule names it):
// KGATE_SPARSE_MLA_WS_PLAN=0|1 forces it off or on for every warp-specialized row it can run;
// KGATE_SPARSE_MLA_WS_OVERHEAD=N sets the blocks of fixed cost per segment (default 3).
int ws_pairs(const sparse_mla_args& a) { return static_cast<int>(Problem::of(a).pairs()); }
int wg_blocks(const sparse_mla_args& a) {
  return (128 + a.topk + kWgCols - 1) / kWgCols;
}  // 64-column blocks per token
const char* ws_plan_forced() {
  const char* e = std::getenv("KGATE_SPARSE_MLA_WS_PLAN");
  return e && (std::string(e) == "0" || std::string(e) == "1") ? e : nullptr;
}
bool ws_planned(const sparse_mla_args& a, const FastPlan& p) {
  if (!p.ws || a.tokens > kPlanMaxTokens || (a.heads + 63) / 64 > 256 || wg_blocks(a) >= 65536) return false;
  if (const char* f = ws_plan_forced()) return f[0] == '1';
  return p.splits > 1 && ws_pairs(a) < 2 * sm_count();
}
int ws_parts(const sparse_mla_args& a) {
  return static_cast<int>(
      std::min<long long>(sm_count(), static_cast<long long>(ws_pairs(a)) * ((wg_blocks(a) + 1) / 2)));
}
int ws_overhead() {
  const char* e = std::getenv("KGATE_SPARSE_MLA_WS_OVERHEAD");
  return e && std::atoi(e) >= 0 ? std::atoi(e) : 3;
}
// The plan's buffer per device, and what it was last derived from (sparse_mla_args' lens_epoch
// contract, as the FlashMLA export reuses its scheduler metadata): a launch with the same nonzero
// epoch, lengths, shape and stream reuses it; any other derives it again (a 1-CTA kernel).
struct WsPlanCache {
  int* buf = nullptr;
  long long ints = 0;
  struct Key {
    unsigned long long epoch = 0;
    const int32_t* lens = nullptr;
    int lens_offset = 0, tokens = 0, topk = 0, heads = 0, parts = 0, overhead = 0;
    cudaStream_t stream = nullptr;
    bool operator==(const Key&) const = default;
  } key;
};
const int* ws_plan(const sparse_mla_args& a, int parts, cudaStream_t s) {
  static WsPlanCache cache[64];
  WsPlanCache& c = cache[device_slot()];
  const WsPlanLayout L{parts, ws_pairs(a)};
  const WsPlanCache::Key key{a.lens_epoch, a.lens, a.lens_offset, a.tokens, a.topk, a.heads, parts, ws_overhead(), s};
  if (L.ints() > c.ints) {
    if (c.buf) KGATE_CUDA(cudaFree(c.buf));
    KGATE_CUDA(cudaMalloc(&c.buf, L.ints() * sizeof(int)));
    c.ints = L.ints();
    c.key = {};
  }
  if (a.lens_epoch == 0 || !(c.key == key)) {
    sparse_mla_ws_plan_kernel<<<1, 256, 0, s>>>(a, (a.heads + 63) / 64, parts, key.overhead, c.buf);
    KGATE_CUDA(cudaGetLastError());
    c.key = a.lens_epoch == 0 ? WsPlanCache::Key{} : key;
  }
  return c.buf;
}
// plan: the length-balanced plan (ws_plan), or null for the queue (CL: the clusters' static order); stride: the
// partials' splits per row; ordered: the token order is in ws_order's buffer already (the dequantized-once pass
// computed it).
template <bool FP8, bool CL>
void fast_ws_launch_as(const sparse_mla_args& a, const FastPlan& p, const int* plan, int stride, __nv_bfloat16* ws,
                       float* ws_ml, bool ordered, cudaStream_t s) {
  ws_raise_smem<FP8, CL>();
  if (plan) {
    sparse_mla_fast_ws_kernel<FP8, CL>
        <<<ws_parts(a), WsGeo::kThreads, WsGeo::kSmem, s>>>(a, stride, 1, ws, ws_ml, nullptr, nullptr, plan);
    return;
  }
  int* order = nullptr;
  if (ws_sorted(a, p, CL)) {
    order = ws_order(a.tokens);
    if (!ordered) sparse_mla_ws_order_kernel<<<1, 1024, 0, s>>>(a, order);
  }
  if (!CL) {
    sparse_mla_fast_ws_kernel<FP8, CL><<<ws_units(a, p, CL), WsGeo::kThreads, WsGeo::kSmem, s>>>(
        a, p.splits, p.blocks_per_split, ws, ws_ml, ws_queue(), order, nullptr);
    return;
  }
  const cudaLaunchConfig_t cfg = cluster_config(2 * ws_units(a, p, CL), s);
  KGATE_CUDA(cudaLaunchKernelEx(&cfg, &sparse_mla_fast_ws_kernel<FP8, CL>, a, p.splits, p.blocks_per_split, ws, ws_ml,
                                static_cast<int*>(nullptr), static_cast<const int*>(order),
                                static_cast<const int*>(nullptr)));
}
// The dequantized-once route: an FP8 row whose tables are gathered many times over (prefill; decode batches
// whose requests share small caches) dequantizes its whole tables (the SWA table and, with topk > 0, the
// compressed one) to BF16 rows first
// (sparse_mla_dequant_kernel) and runs the BF16 warp-specialized kernel on them, whose producer only copies:
// the FP8 producer's dequant is the step's limit there (NOTES). Taken where the cost model's saving, ~0.7 us
// a block step per CTA, beats the pass's traffic (584 B read + 1024 B written a table row at ~3 TB/s) plus
// ~1.5 us, and the BF16 tables fit in 64 MB. Tuning only (the receipts' rule names it):
// KGATE_SPARSE_MLA_DEQUANT=0|1 forces it off or on for every FP8 row of the warp-specialized kernel.
const char* dequant_forced() {
  const char* e = std::getenv("KGATE_SPARSE_MLA_DEQUANT");
  return e && (std::string(e) == "0" || std::string(e) == "1") ? e : nullptr;
}
long long table_rows(const sparse_mla_args& a) { return a.swa_rows + (a.topk > 0 ? a.compressed_rows : 0); }
bool dequant_route(const sparse_mla_args& a, const FastPlan& p) {
  if (!p.ws || !a.kv_fp8 || table_rows(a) < 1 || table_rows(a) * 1024 > (64LL << 20)) return false;
  if (const char* f = dequant_forced()) return f[0] == '1';
  const double steps = std::ceil(static_cast<double>(Problem::of(a).block_steps()) / sm_count());
  return 0.7 * steps > 1.5 + table_rows(a) * 1608.0 / 3.0e6;
}
// The route's BF16 tables, per device. One stream at a time per process, as for the item queue: a second launch
// in flight would dequantize into the same buffer.
void* bf16_tables(size_t bytes) {
  static Grown cache[64];
  return grow(cache[device_slot()], bytes);
}
// The route's arguments: a's, with both tables dequantized into bf16_tables (launched on s); with order, the pass's
// one extra CTA writes the token order there.
sparse_mla_args dequantized(const sparse_mla_args& a, int* order, cudaStream_t s) {
  sparse_mla_args b = a;
  unsigned char* t = static_cast<unsigned char*>(bf16_tables(static_cast<size_t>(table_rows(a)) * 1024));
  const long long tasks = table_rows(a) * 36;
  const int grid = static_cast<int>(std::min<long long>((tasks + 255) / 256, 16LL * sm_count())) + (order ? 1 : 0);
  sparse_mla_dequant_kernel<<<grid, 256, 0, s>>>(static_cast<const unsigned char*>(a.swa_kv), a.swa_rows,
                                                 static_cast<const unsigned char*>(a.compressed_kv), table_rows(a),
                                                 a.page_block, reinterpret_cast<uint4*>(t), a, order);
  b.swa_kv = t;
  if (a.topk > 0) b.compressed_kv = t + a.swa_rows * 1024;
  b.kv_fp8 = 0;
  return b;
}
// Whether a routed row's dequant pass also computes the sorted queue's token order (sparse_mla_dequant_kernel's first
// CTA): a sorted queue, and at most 4096 tokens, since the pass's 256-thread CTA walks the tokens 4 times as often as
// the order kernel's 1024 threads and would outlast the pass on long rows.
bool pass_sorts(const sparse_mla_args& a, const FastPlan& p) {
  return p.ws && !ws_planned(a, p) && ws_sorted(a, p, false) && a.tokens <= 4096;
}
// A row's route through sparse_mla.fast, derived once for both fast_config and launch_fast: a is a0 with kv_fp8 off
// on the dequantized-once route (launch_fast swaps in the BF16 tables), p the plan of the kernel that runs (the BF16
// kernel's on the route), planned the length-balanced plan, ordered whether the dequant pass sorts the tokens too, cl
// the 2-CTA cluster.
struct FastRoute {
  sparse_mla_args a;
  FastPlan p;
  bool deq, planned, ordered, cl;
};
FastRoute fast_route(const sparse_mla_args& a0) {
  FastRoute r{a0, fast_plan(a0, wgmma_device()), false, false, false, false};
  r.deq = dequant_route(a0, r.p);
  if (r.deq) {
    r.a.kv_fp8 = 0;
    r.p = fast_plan(r.a, wgmma_device());
  }
  r.planned = ws_planned(r.a, r.p);
  r.ordered = r.deq && pass_sorts(r.a, r.p);
  const char* f = ws_cluster_forced();
  r.cl = !r.planned && ws_cluster_row(r.a, r.p) && (f ? f[0] == '1' : true);
  return r;
}
int fast_smem(const FastPlan& p, bool fp8) {
  if (p.ws) return WsGeo::kSmem;
  if (p.wg) return fp8 ? WgGeo<true>::kSmem : WgGeo<false>::kSmem;
  return p.ht == 1 ? FastGeo<1>::kSmem : p.ht == 2 ? FastGeo<2>::kSmem : FastGeo<4>::kSmem;
}

json fast_config(const sparse_mla_args& a0) {
  const FastRoute r = fast_route(a0);
  const sparse_mla_args& a = r.a;
  const FastPlan& p = r.p;
  const bool deq = r.deq, planned = r.planned;
  const char* k = p.ws ? "sparse_mla_fast_ws_kernel" : p.wg ? "sparse_mla_fast_wg_kernel" : "sparse_mla_fast_kernel";
  std::string kernels =
      (p.ws && ws_sorted(a, p, r.cl) && !r.ordered ? std::string("sparse_mla_ws_order_kernel + ") : std::string()) + k +
      (p.splits == 1 ? "" : " + sparse_mla_fast_combine_kernel");
  std::string rule = p.rule;
  if (planned) {
    kernels =
        std::string("sparse_mla_ws_plan_kernel (once per lens_epoch) + ") + k + " + sparse_mla_fast_combine_kernel";
    rule = std::string("length-balanced plan: (token, 64-head group) pairs of max(1, active blocks) + ") +
           std::to_string(ws_overhead()) + " blocks each, a contiguous share per CTA, split pairs merged; " +
           (ws_plan_forced() ? "forced by KGATE_SPARSE_MLA_WS_PLAN (tuning run)"
                             : "the cost model splits, pairs < 2 x SMs");
  } else if (p.ws && ws_plan_forced()) {
    rule += "; plan forced off by KGATE_SPARSE_MLA_WS_PLAN (tuning run)";
  }
  if (r.cl) {
    rule += std::string(
                "; 2-CTA clusters: one token's two 64-head groups, each producer dequantizing half of every block for "
                "both, ") +
            (ws_cluster_forced() ? "forced by KGATE_SPARSE_MLA_CLUSTER (tuning run)"
                                 : "FP8 rows of 2 groups the plan leaves alone");
  } else if (!planned && ws_cluster_row(a, p) && ws_cluster_forced()) {
    rule += "; 2-CTA cluster forced off by KGATE_SPARSE_MLA_CLUSTER (tuning run)";
  }
  if (deq) {
    kernels = std::string(r.ordered ? "sparse_mla_dequant_kernel (its first CTA: the token order) + "
                                    : "sparse_mla_dequant_kernel + ") +
              kernels;
    rule = std::string("FP8 tables dequantized once to BF16, then the BF16 kernel: ") +
           (dequant_forced() ? "forced by KGATE_SPARSE_MLA_DEQUANT (tuning run)"
                             : "0.7 us x block steps per CTA > 1.5 us + 1608 B per table row at 3 TB/s") +
           "; " + rule;
  } else if (p.ws && a.kv_fp8 && dequant_forced()) {
    rule += "; dequantized-once route forced off by KGATE_SPARSE_MLA_DEQUANT (tuning run)";
  }
  return {{"kernel", kernels},
          {"path", p.ws   ? "wgmma (sm_90a), warp-specialized: producer + 2 consumer warpgroups, 64 heads x 64 columns"
                   : p.wg ? "wgmma (sm_90a): 2 warpgroups, 64 heads x 64 columns"
                          : "mma.sync"},
          {"grid", planned ? json::array({ws_parts(a), 1, 1})
                   : p.ws  ? json::array({ws_units(a, p, r.cl) * (r.cl ? 2 : 1), 1, 1})
                           : json::array({p.splits, p.groups, a.tokens})},
          {"cluster", r.cl ? 2 : 1},
          {"threads", p.ws   ? 384
                      : p.wg ? 256
                             : 128 * p.ht},
          {"smem_bytes", fast_smem(p, a.kv_fp8 != 0)},
          {"heads_per_cta", 16 * p.ht},
          {"blocks_per_split", planned ? 0 : p.blocks_per_split},
          {"plan", planned ? json{{"partitions", ws_parts(a)}, {"overhead_blocks", ws_overhead()}} : json()},
          {"block_cols", p.cols},
          {"cost_model", planned ? 0.0 : p.cost},
          {"rule", rule},
          {"dequantized_once", deq},
          {"problem", Problem::of(a0).to_json()}};
}
}  // namespace

void launch_fast(const sparse_mla_args& a0, cudaStream_t s) {
  validate(a0, "sparse_mla.fast");
  if (a0.swa_rows >= (1LL << 30) || a0.compressed_rows >= (1LL << 30))
    throw InputError("sparse_mla: sparse_mla.fast: tables of 2^30 rows or more are not supported");
  const FastRoute r = fast_route(a0);
  const FastPlan& p = r.p;
  const bool planned = r.planned, ordered = r.ordered;
  const sparse_mla_args a = r.deq ? dequantized(a0, ordered ? ws_order(a0.tokens) : nullptr, s) : r.a;
  // The partials [T, H, stride, 512]: stride the split count, or, under the length-balanced plan, the
  // most segments a pair can have (the plan gives the combine each pair's own count).
  const int stride = planned ? ws_plan_max_segments(wg_blocks(a)) : p.splits;
  const int* plan = planned ? ws_plan(a, ws_parts(a), s) : nullptr;
  __nv_bfloat16* ws = nullptr;  // the partials: BF16 o [rows, 512], then fp32 (m, l) [rows, 2]
  float* ws_ml = nullptr;
  if (stride > 1) {
    const size_t rows = static_cast<size_t>(a.tokens) * a.heads * stride;
    ws = static_cast<__nv_bfloat16*>(workspace(rows * (512 * 2 + 2 * 4)));
    ws_ml = reinterpret_cast<float*>(ws + rows * 512);
  }
  if (r.cl)
    fast_ws_launch_as<true, true>(a, p, plan, stride, ws, ws_ml, ordered, s);
  else if (p.ws && a.kv_fp8)
    fast_ws_launch_as<true, false>(a, p, plan, stride, ws, ws_ml, ordered, s);
  else if (p.ws)
    fast_ws_launch_as<false, false>(a, p, plan, stride, ws, ws_ml, ordered, s);
  else if (p.wg && a.kv_fp8)
    fast_wg_launch_as<true>(a, p, ws, ws_ml, s);
  else if (p.wg)
    fast_wg_launch_as<false>(a, p, ws, ws_ml, s);
  else if (p.ht == 1)
    fast_launch_as<1>(a, p, ws, ws_ml, s);
  else if (p.ht == 2)
    fast_launch_as<2>(a, p, ws, ws_ml, s);
  else
    fast_launch_as<4>(a, p, ws, ws_ml, s);
  if (stride > 1)
    sparse_mla_fast_combine_kernel<<<dim3((a.heads + kCombineHeads - 1) / kCombineHeads, a.tokens), 64 * kCombineHeads,
                                     0, s>>>(
        a, stride, ws, ws_ml, planned ? plan + WsPlanLayout{ws_parts(a), ws_pairs(a)}.nseg_off() : nullptr);
}

// The kernels each arm's launch may issue, by the names the fallback gate matches (substrings of
// the names CUPTI records). sparse_mla.fast's routes add the length-balanced plan, the token
// order and the dequantized-once tables (fast_config's "kernel" names them per row).
constexpr const char* kFastKernels[] = {"sparse_mla_fast_kernel",    "sparse_mla_fast_wg_kernel",
                                        "sparse_mla_fast_ws_kernel", "sparse_mla_fast_combine_kernel",
                                        "sparse_mla_ws_plan_kernel", "sparse_mla_ws_order_kernel",
                                        "sparse_mla_dequant_kernel"};
constexpr const char* kFloorKernels[] = {"sparse_mla_floor_kernel"};
constexpr const char* kBaselineKernels[] = {"sparse_mla_baseline_kernel", "sparse_mla_combine_kernel"};

const Arm kFastArm{&launch_fast, &fast_config, kFastKernels};
const Arm kFloorArm{&launch_floor, &floor_config, kFloorKernels};
const Arm kBaselineArm{&launch_baseline, &baseline_config, kBaselineKernels};

}  // namespace kgate::sparse_mla::gpu
