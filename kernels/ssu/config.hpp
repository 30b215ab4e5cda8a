#pragma once
// ssu GPU launch configuration: the problem descriptor and the pure heuristics every ssu
// launcher follows. Device-dependent numbers (how many CTAs fit at once) are queried in
// launch.cu and passed in; everything else is decided here, so the config a row will get can
// be computed and printed without launching (the row context's config(), the receipt row).
#include <algorithm>
#include <string>

#include "harness/core/jcs.hpp"
#include "kernels/ssu/abi.h"

namespace kgate::ssu::gpu {

inline constexpr int kP = 64, kN = 128;  // headdim, dstate

inline constexpr int kBaseRows = 8;                        // ssu.baseline: BLOCK_SIZE_M
inline constexpr int kBaseThreads = 128;                   // ssu.baseline: num_warps = 4
inline constexpr int kFastThreads = 64;                    // ssu.fast (NL = 4, 8) and ssu.floor: 2-warp CTAs
inline constexpr int kSmallWarps = 4;                      // ssu.fast on the NL = 2 range: 4-warp CTAs
inline constexpr int kFloorChunks = 8;                     // ssu.floor(_stream): 16-byte chunks per lane
inline constexpr int kStreamWarps = 4, kStreamStages = 3;  // ssu.floor_stream
inline constexpr int kStreamSmemBytes = kStreamWarps * kStreamStages * kFloorChunks * 32 * 16;

// ssu.fast kernel modes (bits of its kMode template parameter):
//   kEarly: the side inputs (z included) are issued before the state copy, so their latency
//           overlaps the slot load's and z is in registers before the reduction; without it
//           they follow the copy and z is read at the end.
//   kVecBC: B and C with one vector load per lane slice when the view is aligned.
//   kPrefetch: side rows prefetched to L2 ahead of their CTAs (prefetch_side_rows).
//   kAllLoads: the state copy first, then every side load before any arithmetic on them, so
//           no load waits behind dt's softplus. Without kEarly only.
//   kFastGate: the z gate's division as __fdividef (2 ulp) instead of the IEEE division, whose
//           slow-path call sits in every CTA's epilogue.
//   kLoadLast: the state copy reads at L2 evict_last priority, so a line stays in L2 between
//           its read and its in-place write (3-7 % on the H200, kernels/ssu/NOTES.md).
//   kStoreNormal: the updated state is stored at L2 evict_normal priority (explicit cache
//           hint): the lines the copy read at evict_last go back to normal priority. Without
//           it, plain stores.
//   kSideWarp: not a mode of the row-owner kernel but the side-warp kernel (fast.cuh,
//           ssu_fast_kernel_side_warp): state warps that only move the state, one warp per CTA
//           for every side input; BF16 state up to kSideTiles tiles (fast_config).
enum FastMode : int {
  kEarly = 1,
  kVecBC = 2,
  kPrefetch = 4,
  kAllLoads = 8,
  kFastGate = 16,
  kLoadLast = 32,
  kStoreNormal = 64,
  kSideWarp = 128
};

// The mode of each NL range of the row-owner kernel; small_waves is the NL = 2 mode once the grid
// is more than one resident wave (while it fits one wave the launch is latency bound: state copy
// first). BF16 state: vector B/C and the side-row prefetch on the mid and large ranges, early side
// inputs and the fast z gate on the mid range; its NL = 2 range (<= 384 tiles) is the side-warp
// kernel's (kSideTiles below), so its small modes are 0: none, not instantiated. (The BF16 NL = 2
// modes it replaced, small and small_wide: kernels/ssu/NOTES.md.) FP32 state: its side inputs
// weigh half as much next to its state, and vector B/C with the prefetch did not help it. Every
// range reads the state at evict_last; the BF16 large range stores at evict_normal (measured
// faster there; plain stores measured faster elsewhere). Measured on the H200: kernels/ssu/NOTES.md.
struct FastModes {
  int small, small_waves, mid, large;
};
inline constexpr FastModes kFastModesBf16{0, 0, kEarly | kVecBC | kPrefetch | kFastGate | kLoadLast,
                                          kVecBC | kPrefetch | kLoadLast | kStoreNormal};
inline constexpr FastModes kFastModesFp32{kLoadLast, kAllLoads | kLoadLast, kEarly | kLoadLast, kLoadLast};

// Geometry: a 16-byte chunk holds 8 BF16 or 4 FP32 state values; a warp-wide chunk covers
// 32 / (chunks per row) rows, so a lane carrying NL chunks gives a warp NL times that.
constexpr int chunk_values(bool state_bf16) { return state_bf16 ? 8 : 4; }
constexpr int rows_per_warp(bool state_bf16, int nl) { return nl * (32 / (kN / chunk_values(state_bf16))); }
constexpr int fast_warps(int nl) { return nl == 2 ? kSmallWarps : kFastThreads / 32; }
constexpr int ctas_per_head(bool state_bf16, int nl, int warps = kFastThreads / 32) {
  return kP / (warps * rows_per_warp(state_bf16, nl));
}

// What the heuristics read of a launch. Validates itself (empty string when valid).
struct Problem {
  int batch = 0, nheads = 0, ngroups = 0;
  bool state_bf16 = false, io_bf16 = false, has_z = false;

  static Problem of(const ssu_args& a) {
    return {a.batch, a.nheads, a.ngroups, a.state_bf16 != 0, a.io_bf16 != 0, a.has_z != 0};
  }
  long long tiles() const { return static_cast<long long>(batch) * nheads; }  // (batch, head) pairs
  std::string invalid() const {
    if (batch < 1) return "batch: must be >= 1, got " + std::to_string(batch);
    if (nheads < 1) return "nheads: must be >= 1, got " + std::to_string(nheads);
    if (ngroups < 1 || nheads % ngroups)
      return "ngroups: must divide nheads (" + std::to_string(nheads) + "), got " + std::to_string(ngroups);
    return "";
  }
  json to_json() const {
    return {{"batch", batch},
            {"nheads", nheads},
            {"ngroups", ngroups},
            {"state_dtype", state_bf16 ? "bf16" : "fp32"},
            {"io_dtype", io_bf16 ? "bf16" : "fp32"},
            {"has_z", has_z}};
  }
};

// With at most ~3 (batch, head) tiles per SM the update is latency bound, so lanes carry 2
// chunks and 4x more CTAs issue at once; up to 8192 tiles lanes carry 4 chunks; beyond that 8.
inline int fast_chunks_per_lane(const Problem& p) {
  const long long tiles = p.tiles();
  return tiles <= 384 ? 2 : tiles <= 8192 ? 4 : 8;
}

// As many CTAs as fit at once (max_ctas), trimmed so every warp of a round-robin walk over
// `items` gets the same number of items (no tail of half-busy warps).
inline int balanced_grid(int items, int max_ctas, int warps_per_cta) {
  const int max_warps = max_ctas * warps_per_cta;
  const int per_warp = std::max(1, (items + max_warps - 1) / max_warps);
  const int warps = (items + per_warp - 1) / per_warp;
  return std::max(1, (warps + warps_per_cta - 1) / warps_per_cta);
}

// One launch as the launcher will make it.
struct LaunchConfig {
  std::string kernel;
  unsigned grid[3] = {1, 1, 1};
  int threads = 0, smem_bytes = 0;
  int chunks_per_lane = 0;  // NL (fast, floors)
  int mode = 0;             // FastMode bits (fast)
  std::string rule;         // why this config
  Problem problem;

  json to_json() const {
    json modes = json::array();
    for (auto [bit, name] : {std::pair{kEarly, "early"},
                             {kVecBC, "vec_bc"},
                             {kPrefetch, "prefetch"},
                             {kAllLoads, "all_loads"},
                             {kFastGate, "fast_gate"},
                             {kLoadLast, "load_evict_last"},
                             {kStoreNormal, "store_evict_normal"},
                             {kSideWarp, "side_warp"}})
      if (mode & bit) modes.push_back(name);
    return {{"kernel", kernel},
            {"grid", {grid[0], grid[1], grid[2]}},
            {"threads", threads},
            {"smem_bytes", smem_bytes},
            {"chunks_per_lane", chunks_per_lane},
            {"mode", modes},
            {"rule", rule},
            {"problem", problem.to_json()}};
  }
};

inline LaunchConfig baseline_config(const Problem& p) {
  LaunchConfig c{"ssu_baseline_kernel",
                 {kP / kBaseRows, static_cast<unsigned>(p.batch), static_cast<unsigned>(p.nheads)},
                 kBaseThreads,
                 0,
                 0,
                 0,
                 "grid (dim tiles, batch, heads), 8 rows per program",
                 p};
  return c;
}

// The side-warp kernel (BF16 state): up to kSideTiles tiles, W state warps of NL chunks per lane
// plus one side warp per CTA. Measured on the H200 against the row-owner kernel (kernels/ssu/NOTES.md):
// 4 warps of NL = 4 from 97 tiles (Nemotron b1 3.46 ->
// 3.33 us, b2 4.45 -> 4.22, b4 6.72 -> 6.40, Mamba2 b8 7.87 -> 7.25, granite b16 8.67 -> 8.47);
// 2 warps of NL = 2 up to 96 tiles (granite b1 2.94 -> 2.58, TP2 b1 3.04 -> 2.72, Mamba2 b1 3.17
// -> 2.91), where 4 x 4 leaves SMs idle; 1024 tiles (Nemotron b8) measured no gain.
inline constexpr long long kSideTiles = 768, kSideNarrowTiles = 96;
struct SideGeometry {
  int warps, nl;  // state warps per CTA, chunks per lane
};
inline SideGeometry side_geometry(const Problem& p) {
  return p.tiles() <= kSideNarrowTiles ? SideGeometry{2, 2} : SideGeometry{4, 4};
}
inline bool fast_side_warp(const Problem& p) { return p.state_bf16 && p.tiles() <= kSideTiles; }
static_assert(kSideTiles >= 384,
              "the side-warp kernel must cover the BF16 NL = 2 range (kFastModesBf16 has no small modes)");

// Only the NL = 2 range of the row-owner kernel asks how many CTAs fit at once (the wave rule).
inline bool fast_needs_resident_ctas(const Problem& p) { return !fast_side_warp(p) && fast_chunks_per_lane(p) == 2; }

// resident_ctas: CTAs of the NL = 2 kernel that fit on the device at once; read only when
// fast_needs_resident_ctas(p).
inline LaunchConfig fast_config(const Problem& p, int resident_ctas) {
  if (fast_side_warp(p)) {
    const SideGeometry g = side_geometry(p);
    const unsigned grid = static_cast<unsigned>(p.tiles()) * (kP / (g.warps * rows_per_warp(true, g.nl)));
    return {"ssu_fast_kernel_side_warp",
            {grid, 1, 1},
            32 * (g.warps + 1),
            0,
            g.nl,
            kSideWarp | kLoadLast,
            "BF16 state, <= " + std::to_string(kSideTiles) + " tiles: " + std::to_string(g.warps) +
                " state warps of NL = " + std::to_string(g.nl) + " (" +
                (g.warps == 2 ? "<= " + std::to_string(kSideNarrowTiles) + " tiles"
                              : "> " + std::to_string(kSideNarrowTiles) + " tiles") +
                ") + 1 side warp per CTA",
            p};
  }
  const FastModes& m = p.state_bf16 ? kFastModesBf16 : kFastModesFp32;
  const int nl = fast_chunks_per_lane(p);
  const unsigned grid = static_cast<unsigned>(p.batch) * p.nheads * ctas_per_head(p.state_bf16, nl, fast_warps(nl));
  LaunchConfig c{"ssu_fast_kernel", {grid, 1, 1}, 32 * fast_warps(nl), 0, nl, 0, "", p};
  if (nl == 2 && m.small_waves != m.small && static_cast<long long>(grid) > resident_ctas) {
    c.mode = m.small_waves;
    c.rule = "<= 384 tiles: NL = 2; grid beyond one resident wave (" + std::to_string(resident_ctas) + " CTAs)";
  } else if (nl == 2) {
    c.mode = m.small;
    c.rule = "<= 384 tiles: NL = 2; grid within one resident wave";
  } else if (nl == 4) {
    c.mode = m.mid;
    c.rule = "385-8192 tiles: NL = 4";
  } else {
    c.mode = m.large;
    c.rule = "> 8192 tiles: NL = 8";
  }
  return c;
}

inline LaunchConfig floor_config(const Problem& p) {
  const unsigned grid = static_cast<unsigned>(p.batch) * p.nheads * ctas_per_head(p.state_bf16, kFloorChunks);
  return {"ssu_floor_kernel",
          {grid, 1, 1},
          kFastThreads,
          0,
          kFloorChunks,
          0,
          "ssu.fast's NL = 8 geometry, loads at L2 evict_last, plain stores",
          p};
}

// ssu.floor_copy: one 16-byte chunk per thread, 256-thread CTAs, a grid over every owned tile.
inline constexpr int kCopyThreads = 256;
inline LaunchConfig floor_copy_config(const Problem& p) {
  const int rows_per_cta = kCopyThreads / (kN / chunk_values(p.state_bf16));
  const unsigned grid = static_cast<unsigned>(p.batch) * p.nheads * (kP / rows_per_cta);
  return {"ssu_floor_copy_kernel",
          {grid, 1, 1},
          kCopyThreads,
          0,
          1,
          0,
          "out of place: one 16-byte chunk per thread, plain loads and stores",
          p};
}

// Warp tiles the streaming floor walks: NL = 8 rows per warp over every (batch, head).
inline int floor_stream_tiles(const Problem& p) {
  return p.batch * p.nheads * (kP / rows_per_warp(p.state_bf16, kFloorChunks));
}
// resident_ctas: CTAs of the streaming kernel that fit on the device at once.
inline LaunchConfig floor_stream_config(const Problem& p, int resident_ctas) {
  const int grid = balanced_grid(floor_stream_tiles(p), resident_ctas, kStreamWarps);
  return {"ssu_floor_stream_kernel",
          {static_cast<unsigned>(grid), 1, 1},
          32 * kStreamWarps,
          kStreamSmemBytes,
          kFloorChunks,
          0,
          "persistent: resident CTAs (" + std::to_string(resident_ctas) + ") trimmed to equal warp shares",
          p};
}

}  // namespace kgate::ssu::gpu

namespace kgate::ssu {

// The work model (Family::work) in its terms, from the normalized params. Per call:
//  state_bytes: the state tile of every batch row that owns a slot (pad rows, slot -1, leave
//    the pool untouched and read none of it), read once and written once in place:
//    2 * (batch - pad_slots) * nheads * 64 * 128 * sizeof(state_dtype). The floor arms move
//    exactly these bytes.
//  side_bytes: every other tensor once at its dtype: x, out (and z when has_z) batch * nheads *
//    64 io elements each (a fused view's fused_extra elements are not read); B and C batch *
//    ngroups * 128 io elements each; dt batch * nheads weight elements; A, D, dt_bias nheads
//    weight elements each; the slot table batch * 4 bytes.
//  flops, per (batch row, head), pad rows included (every arm computes their output, on a zero
//    state): per state element (64 x 128) 5 = the update s * dA + (dt' x[d]) * B[n] (a multiply
//    and a multiply-add: 3) + the output's s * C[n] accumulation (a multiply-add: 2); per head
//    row d (64) 1 for dt' x[d] + 2 for + D x[d], + 4 with z (z * sigmoid(z): 1 + e, a division,
//    two multiplies); 2 per (batch row, head) for dt + dt_bias and A dt'. exp, log1p and the
//    softplus branch are not counted. Multiply-add = 2.
struct WorkTerms {
  double state_bytes = 0, side_bytes = 0, flops = 0;
};
inline WorkTerms work_terms(const json& p) {
  const double batch = p.at("batch").get<double>(), heads = p.at("nheads").get<double>();
  const double groups = p.at("ngroups").get<double>(), owned = batch - p.at("pad_slots").get<double>();
  const double s = p.at("state_dtype") == "bf16" ? 2 : 4, io = p.at("io_dtype") == "bf16" ? 2 : 4;
  const double w = p.at("weight_dtype") == "bf16" ? 2 : 4;
  const bool z = p.at("has_z").get<bool>();
  constexpr double P = gpu::kP, N = gpu::kN;
  WorkTerms t;
  t.state_bytes = 2 * owned * heads * P * N * s;
  t.side_bytes = batch * heads * P * io * (z ? 3 : 2)  // x, out, z
                 + 2 * batch * groups * N * io         // B, C
                 + batch * heads * w + 3 * heads * w   // dt; A, D, dt_bias
                 + batch * 4;                          // slots
  t.flops = batch * heads * (5 * P * N + P * (z ? 7 : 3) + 2);
  return t;
}

}  // namespace kgate::ssu
