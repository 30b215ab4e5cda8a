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

// The tuning overrides in the environment (config.hpp's Tuning: each variable's forced value, or 0).
char forced01(const char* name) {
  const char* e = std::getenv(name);
  return e && (std::string(e) == "0" || std::string(e) == "1") ? e[0] : 0;
}
Tuning tuning_from_env() {
  Tuning tu;
  if (const char* e = std::getenv("KGATE_SPARSE_MLA_FAST_PATH");
      e && (std::string(e) == "wg" || std::string(e) == "ws"))
    tu.path = e[1] == 's' ? 's' : 'w';
  if (const char* e = std::getenv("KGATE_SPARSE_MLA_FAST_SPLITS"); e && std::atoi(e) > 0) tu.splits = std::atoi(e);
  tu.plan = forced01("KGATE_SPARSE_MLA_WS_PLAN");
  tu.cluster = forced01("KGATE_SPARSE_MLA_CLUSTER");
  tu.dequant = forced01("KGATE_SPARSE_MLA_DEQUANT");
  if (const char* e = std::getenv("KGATE_SPARSE_MLA_WS_OVERHEAD"); e && std::atoi(e) >= 0) tu.overhead = std::atoi(e);
  return tu;
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
// A split kernel (the mma.sync and lockstep paths) on the grid (splits, head groups, tokens), its dynamic shared
// memory limit raised once per device.
using SplitKernel = void (*)(sparse_mla_args, int, int, __nv_bfloat16*, float*);
template <SplitKernel K, int kThreads, int kSmem>
void split_launch(const sparse_mla_args& a, const FastPlan& p, __nv_bfloat16* ws, float* ws_ml, cudaStream_t s) {
  static bool done[64];
  raise_smem(reinterpret_cast<const void*>(K), kSmem, done);
  K<<<dim3(p.splits, p.groups, a.tokens), kThreads, kSmem, s>>>(a, p.splits, p.blocks_per_split, ws, ws_ml);
}
template <int HT>
void fast_launch_as(const sparse_mla_args& a, const FastPlan& p, __nv_bfloat16* ws, float* ws_ml, cudaStream_t s) {
  split_launch<&sparse_mla_fast_kernel<HT>, FastGeo<HT>::kThreads, FastGeo<HT>::kSmem>(a, p, ws, ws_ml, s);
}
template <bool FP8>
void fast_wg_launch_as(const sparse_mla_args& a, const FastPlan& p, __nv_bfloat16* ws, float* ws_ml, cudaStream_t s) {
  split_launch<&sparse_mla_fast_wg_kernel<FP8>, WgGeo<FP8>::kThreads, WgGeo<FP8>::kSmem>(a, p, ws, ws_ml, s);
}
// The persistent grid of the warp-specialized path: one CTA per SM at most, items from the queue.
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
// The warp-specialized kernel's unit cap (config.hpp's ws_units): the SMs, or under the cluster the clusters
// resident at once.
int unit_cap(bool cl) { return cl ? ws_cluster_units() : sm_count(); }
// config.hpp's rules on this device and this process's tuning (they hide config.hpp's names in this namespace).
int ws_parts(const sparse_mla_args& a) { return sparse_mla::ws_parts(a, sm_count()); }
FastRoute fast_route(const sparse_mla_args& a0) {
  return sparse_mla::fast_route(a0, Device{sm_count(), wgmma_device()}, tuning_from_env());
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
  const WsPlanCache::Key key{
      a.lens_epoch, a.lens, a.lens_offset, a.tokens, a.topk, a.heads, parts, tuning_from_env().overhead, s};
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
  if (ws_sorted(a, p, CL, unit_cap(CL))) {
    order = ws_order(a.tokens);
    if (!ordered) sparse_mla_ws_order_kernel<<<1, 1024, 0, s>>>(a, order);
  }
  if (!CL) {
    sparse_mla_fast_ws_kernel<FP8, CL><<<ws_units(a, p, CL, unit_cap(CL)), WsGeo::kThreads, WsGeo::kSmem, s>>>(
        a, p.splits, p.blocks_per_split, ws, ws_ml, ws_queue(), order, nullptr);
    return;
  }
  const cudaLaunchConfig_t cfg = cluster_config(2 * ws_units(a, p, CL, unit_cap(CL)), s);
  KGATE_CUDA(cudaLaunchKernelEx(&cfg, &sparse_mla_fast_ws_kernel<FP8, CL>, a, p.splits, p.blocks_per_split, ws, ws_ml,
                                static_cast<int*>(nullptr), static_cast<const int*>(order),
                                static_cast<const int*>(nullptr)));
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
  const Tuning& tu = r.tu;
  const char* k = p.ws ? "sparse_mla_fast_ws_kernel" : p.wg ? "sparse_mla_fast_wg_kernel" : "sparse_mla_fast_kernel";
  std::string kernels =
      (p.ws && ws_sorted(a, p, r.cl, unit_cap(r.cl)) && !r.ordered ? std::string("sparse_mla_ws_order_kernel + ")
                                                                   : std::string()) +
      k + (p.splits == 1 ? "" : " + sparse_mla_fast_combine_kernel");
  std::string rule = p.rule;
  if (planned) {
    kernels =
        std::string("sparse_mla_ws_plan_kernel (once per lens_epoch) + ") + k + " + sparse_mla_fast_combine_kernel";
    rule = std::string("length-balanced plan: (token, 64-head group) pairs of max(1, active blocks) + ") +
           std::to_string(tu.overhead) + " blocks each, a contiguous share per CTA, split pairs merged; " +
           (tu.plan ? "forced by KGATE_SPARSE_MLA_WS_PLAN (tuning run)" : "the cost model splits, pairs < 2 x SMs");
  } else if (p.ws && tu.plan) {
    rule += "; plan forced off by KGATE_SPARSE_MLA_WS_PLAN (tuning run)";
  }
  if (r.cl) {
    rule +=
        std::string(
            "; 2-CTA clusters: one token's two 64-head groups, each producer dequantizing half of every block for "
            "both, ") +
        (tu.cluster ? "forced by KGATE_SPARSE_MLA_CLUSTER (tuning run)" : "FP8 rows of 2 groups the plan leaves alone");
  } else if (!planned && ws_cluster_row(a, p) && tu.cluster) {
    rule += "; 2-CTA cluster forced off by KGATE_SPARSE_MLA_CLUSTER (tuning run)";
  }
  if (deq) {
    kernels = std::string(r.ordered ? "sparse_mla_dequant_kernel (its first CTA: the token order) + "
                                    : "sparse_mla_dequant_kernel + ") +
              kernels;
    rule = std::string("FP8 tables dequantized once to BF16, then the BF16 kernel: ") +
           (tu.dequant ? "forced by KGATE_SPARSE_MLA_DEQUANT (tuning run)"
                       : "0.7 us x block steps per CTA > 1.5 us + 1608 B per table row at 3 TB/s") +
           "; " + rule;
  } else if (p.ws && a.kv_fp8 && tu.dequant) {
    rule += "; dequantized-once route forced off by KGATE_SPARSE_MLA_DEQUANT (tuning run)";
  }
  return {{"kernel", kernels},
          {"path", p.ws   ? "wgmma (sm_90a), warp-specialized: producer + 2 consumer warpgroups, 64 heads x 64 columns"
                   : p.wg ? "wgmma (sm_90a): 2 warpgroups, 64 heads x 64 columns"
                          : "mma.sync"},
          {"grid", planned ? json::array({ws_parts(a), 1, 1})
                   : p.ws  ? json::array({ws_units(a, p, r.cl, unit_cap(r.cl)) * (r.cl ? 2 : 1), 1, 1})
                           : json::array({p.splits, p.groups, a.tokens})},
          {"cluster", r.cl ? 2 : 1},
          {"threads", p.ws   ? 384
                      : p.wg ? 256
                             : 128 * p.ht},
          {"smem_bytes", fast_smem(p, a.kv_fp8 != 0)},
          {"heads_per_cta", 16 * p.ht},
          {"blocks_per_split", planned ? 0 : p.blocks_per_split},
          {"plan", planned ? json{{"partitions", ws_parts(a)}, {"overhead_blocks", tu.overhead}} : json()},
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
