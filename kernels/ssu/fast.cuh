#pragma once
// ssu.fast, two kernels (config.hpp picks one per row). BF16 state up to 768 (batch, head) tiles:
// the side-warp kernel (the end of this file): state warps that only move the state, one warp per
// CTA for every side input. Everything else: the row owner below. Row owner: a 2-warp CTA owns
// 2 * NL * 32 / (chunks per row) rows of one head;
// every lane copies its NL 16-byte state chunks global -> shared with cp.async before any
// arithmetic (NL = 2, 4 or 8 by problem size, config.hpp), at L2 evict_last priority, B and C
// stay in registers, the updated state is stored back in place. Side inputs take any alignment
// (vector B/C loads when aligned). For BF16 state above 384 (batch, head) tiles, the first CTA
// of each batch row bulk-prefetches the side rows (x, z, B, C, dt) of a later batch row into L2,
// so side loads hit L2 instead of opening DRAM rows next to the state stream.
#include <cstdint>
#include <type_traits>

#include "kernels/ssu/device.cuh"

namespace kgate::ssu::gpu {
namespace {

// Geometry: every lane moves NL 16-byte chunks of state, so a warp owns RPW = NL * (32 / CPR)
// rows and a W-warp CTA owns W * RPW rows. Small CTAs keep the last wave's tail short; on the
// NL = 2 range (one or two waves of short CTAs) 4 warps per CTA measured 3 % faster.
template <class ST, int NL_, int W = 2>
struct Geo {
  static constexpr int V = Chunk<ST>::V;
  static constexpr int CPR = kN / V;    // 16-byte chunks per row: 16 (bf16) or 32 (fp32)
  static constexpr int RPL = 32 / CPR;  // rows one warp-wide chunk covers: 2 or 1
  static constexpr int NL = NL_;        // chunks in flight per lane
  static constexpr int RPW = NL * RPL;  // rows per warp
  static constexpr int kWarps = W;      // 2, or kSmallWarps on the NL = 2 range (config.hpp)
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRowsPerCta = kWarps * RPW;
  static constexpr int kCtasPerHead = kP / kRowsPerCta;
};

// Side-row prefetch (kPrefetch): the side inputs (x, z, B, C, dt) are small per batch row but
// scattered next to the state stream; read one 128-byte row at a time by each CTA they cost
// far more than their bytes. The first CTA of batch row b asks L2 for the whole side rows of
// batch row b + ahead (one bulk prefetch per input, normal priority), ahead being about 24 MB
// of state traffic; the CTAs of batch row 0 cover rows 0 .. ahead - 1. By the time a CTA runs,
// its side loads hit L2. Not evict_last: such lines outlive the kernel and crowd the L2 of
// whatever runs next (and outlive a plain memset flush; see harness/gpu/device.hpp).
__device__ __forceinline__ void bulk_prefetch_l2(const void* p, long long bytes) {
  // The bulk prefetch is sm_90's: ssu.fast is declared for sm_90a alone, and the build's other
  // architectures (sm_80) compile the hint away.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{15};
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes + 15) & ~uintptr_t{15};
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(lo), "r"(static_cast<unsigned>(hi - lo))
               : "memory");
#endif
}
template <class ST, class IT>
__device__ __forceinline__ void prefetch_side_rows(const Args& a, int b, int h, int part) {
  if (part != 0 || threadIdx.x != 0) return;
  // 8, 24 and 48 MB ahead measure the same (NOTES.md); 24 keeps the rows clear of both ends.
  const long long row_state = static_cast<long long>(a.nheads) * kP * kN * sizeof(ST) * 2;
  const int ahead = static_cast<int>(min(64LL, max(2LL, (24LL << 20) / row_state)));
  auto row = [&](int bb) {
    if (bb >= a.batch) return;
    const long long xs = static_cast<long long>(a.nheads) * kP * sizeof(IT);
    bulk_prefetch_l2(static_cast<const IT*>(a.x) + bb * a.x_stride, xs);
    if (a.has_z) bulk_prefetch_l2(static_cast<const IT*>(a.z) + bb * a.x_stride, xs);
    const long long bcs = static_cast<long long>(a.ngroups) * kN * sizeof(IT);
    bulk_prefetch_l2(static_cast<const IT*>(a.B) + bb * a.bc_stride, bcs);
    bulk_prefetch_l2(static_cast<const IT*>(a.C) + bb * a.bc_stride, bcs);
    const int wsz = a.weight_bf16 ? 2 : 4;
    bulk_prefetch_l2(static_cast<const char*>(a.dt) + static_cast<long long>(bb) * a.nheads * wsz, a.nheads * wsz);
  };
  if (b == 0)
    for (int bb = h; bb < ahead; bb += a.nheads) row(bb);
  else if (h == 0)
    row(b + ahead);
}

template <class IT, int V>
__device__ __forceinline__ void load_bc(const Args& a, long long bci, float dt, float* Bv, float* Cv, bool vec) {
  const IT* Bp = static_cast<const IT*>(a.B) + bci;
  const IT* Cp = static_cast<const IT*>(a.C) + bci;
  constexpr int kSlice = V * sizeof(IT);
  using Word = std::conditional_t<kSlice >= 16, uint4, uint2>;
  constexpr int W = kSlice / sizeof(Word), E = sizeof(Word) / sizeof(IT);
  if (vec && ((reinterpret_cast<uintptr_t>(Bp) | reinterpret_cast<uintptr_t>(Cp)) & (sizeof(Word) - 1)) == 0) {
#pragma unroll
    for (int w = 0; w < W; ++w) {
      Word rb = reinterpret_cast<const Word*>(Bp)[w], rc = reinterpret_cast<const Word*>(Cp)[w];
      const IT* eb = reinterpret_cast<const IT*>(&rb);
      const IT* ec = reinterpret_cast<const IT*>(&rc);
#pragma unroll
      for (int j = 0; j < E; ++j) {
        Bv[w * E + j] = to_f(eb[j]) * dt;
        Cv[w * E + j] = to_f(ec[j]);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j) {
      Bv[j] = to_f(Bp[j]) * dt;
      Cv[j] = to_f(Cp[j]);
    }
  }
}

// One lane's NL chunks of state: s = s dA + (B dt')[j] x[i] and the partial row sums
// acc[i] = sum_j s[j] C[j]; chunk i comes from load(i) and goes back through store(i, packed)
// when the row owns a slot (a pad row updates a zero state and stores nothing). Then the row
// sums over the CPR lanes of each row, independent across i, so the shuffles overlap.
template <class ST, int NL, int CPR, class Load, class Store>
__device__ __forceinline__ void update_chunks(bool owned, Load&& load, Store&& store, float dA, const float* Bv,
                                              const float* Cv, const float* x, float* acc) {
  constexpr int V = Chunk<ST>::V;
#pragma unroll
  for (int i = 0; i < NL; ++i) {
    float s[V];
    if (owned)
      Chunk<ST>::unpack(load(i), s);
    else
#pragma unroll
      for (int j = 0; j < V; ++j) s[j] = 0.f;
    acc[i] = 0.f;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      s[j] = fmaf(s[j], dA, Bv[j] * x[i]);
      acc[i] = fmaf(s[j], Cv[j], acc[i]);
    }
    if (owned) store(i, Chunk<ST>::pack(s));
  }
#pragma unroll
  for (int o = CPR / 2; o > 0; o >>= 1)
#pragma unroll
    for (int i = 0; i < NL; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
}

// The out rows of one lane (the first of its row's CPR lanes): out = y + D x, gated by z.
template <class IT, int NL, int RPL, class Gate>
__device__ __forceinline__ void store_out(IT* out, const float* acc, float Dh, const float* x, bool has_z,
                                          Gate&& gate) {
#pragma unroll
  for (int i = 0; i < NL; ++i) {
    float o = acc[i] + Dh * x[i];
    if (has_z) o = gate(i, o);
    out[i * RPL] = from_f<IT>(o);
  }
}

// The state stream goes global -> shared through cp.async, so bytes in flight cost shared
// memory, not registers: occupancy is set by the small register footprint of the arithmetic.
// Each lane reads back only the chunks it copied itself, so no barrier is needed.
// kMode (FastMode bits, config.hpp) picks the load order and the optional paths.
template <class ST, class IT, int NL, int kMode, int W = 2>
__global__ void __launch_bounds__(32 * W, (sizeof(ST) == 4 ? (NL == 8 ? 20 : 24) : 16) * 2 / W)
    ssu_fast_kernel(Args a) {
  using G = Geo<ST, NL, W>;
  constexpr int V = G::V, CPR = G::CPR, RPL = G::RPL;
  constexpr bool early = kMode & kEarly;
  __shared__ uint4 stage[G::kThreads * NL];
  const int part = blockIdx.x % G::kCtasPerHead, bh = blockIdx.x / G::kCtasPerHead;
  const int h = bh % a.nheads, b = bh / a.nheads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int cc = lane % CPR, rsub = lane / CPR;
  const int row0 = part * G::kRowsPerCta + warp * G::RPW;
  const int slot = a.slots[b];
  uint4* tile = reinterpret_cast<uint4*>(static_cast<ST*>(a.state) +
                                         ((static_cast<long long>(slot) * a.nheads + h) * kP + row0) * kN);
  uint4* mine = stage + threadIdx.x;
  if constexpr ((kMode & kPrefetch) != 0) prefetch_side_rows<ST, IT>(a, b, h, part);
  float dt, dA, Dh, Bv[V], Cv[V], x[NL], zv[NL];
  auto bc_index = [&] { return static_cast<long long>(b) * a.bc_stride + (h / (a.nheads / a.ngroups)) * kN + cc * V; };
  auto x_index = [&] { return static_cast<long long>(b) * a.x_stride + h * kP + row0 + rsub; };
  auto copy_state = [&] {
    if (slot < 0) return;
    if constexpr ((kMode & kLoadLast) != 0) {
      const uint64_t last = l2_evict_last();
#pragma unroll
      for (int i = 0; i < NL; ++i) cp_async16_hint(mine + i * G::kThreads, tile + i * 32 + lane, last);
    } else {
#pragma unroll
      for (int i = 0; i < NL; ++i) cp_async16(mine + i * G::kThreads, tile + i * 32 + lane);
    }
  };
  constexpr bool all_loads = kMode & kAllLoads;
  static_assert(!(early && all_loads), "kAllLoads is a form of the copy-first order");
  if constexpr (!early && !all_loads) {
    // Copy-first order: state copy, then the side inputs while it streams in.
    copy_state();
    dt = dt_eff(a, b, h);
    dA = __expf(load_w(a.A, h, a.weight_bf16) * dt);
    load_bc<IT, V>(a, bc_index(), dt, Bv, Cv, kMode & kVecBC);
    const long long xrow = x_index();
#pragma unroll
    for (int i = 0; i < NL; ++i) x[i] = ld_io<IT>(a.x, xrow + i * RPL);
    Dh = load_w(a.D, h, a.weight_bf16);
  } else {
    if constexpr (all_loads) copy_state();
    const float dt_raw = load_w(a.dt, bh, a.weight_bf16), dt_bias = load_w(a.dt_bias, h, a.weight_bf16);
    const float A = load_w(a.A, h, a.weight_bf16);
    Dh = load_w(a.D, h, a.weight_bf16);
    load_bc<IT, V>(a, bc_index(), 1.f, Bv, Cv, kMode & kVecBC);
    const long long xrow = x_index();
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      x[i] = ld_io<IT>(a.x, xrow + i * RPL);
      zv[i] = early && a.has_z && cc == 0 ? ld_io<IT>(a.z, xrow + i * RPL) : 0.f;
    }
    if constexpr (early) copy_state();
    dt = dt_from(a, dt_raw, dt_bias);
    dA = __expf(A * dt);
#pragma unroll
    for (int j = 0; j < V; ++j) Bv[j] *= dt;
  }
  cp_async_wait_all();
  float acc[NL];
  uint64_t normal = 0;
  if constexpr ((kMode & kStoreNormal) != 0) normal = l2_evict_normal();
  update_chunks<ST, NL, CPR>(
      slot >= 0, [&](int i) { return mine[i * G::kThreads]; },
      [&](int i, uint4 v) {
        if constexpr ((kMode & kStoreNormal) != 0)
          st16_hint(tile + i * 32 + lane, v, normal);
        else
          tile[i * 32 + lane] = v;
      },
      dA, Bv, Cv, x, acc);
  if (cc == 0) {
    // The output row from bh: its index expression moves the register allocation, and this form keeps
    // each instance's measured register count (kernels/ssu/NOTES.md, "Rules the design follows").
    const long long out_row = bh;
    store_out<IT, NL, RPL>(static_cast<IT*>(a.out) + out_row * kP + row0 + rsub, acc, Dh, x, a.has_z,
                           [&](int i, float o) {
                             float zz;
                             if constexpr (early)
                               zz = zv[i];
                             else
                               zz = ld_io<IT>(a.z, x_index() + i * RPL);
                             return (kMode & kFastGate) ? silu_gate_fast(o, zz) : silu_gate(o, zz);
                           });
  }
}

}  // namespace
}  // namespace kgate::ssu::gpu

namespace kgate::ssu::gpu {
namespace {

// ssu.fast, side-warp form (BF16 state, up to kSideTiles (batch, head) tiles; config.hpp). The
// CTA's W state warps do before the state arrives only what ssu.floor does (the slot, the state
// into registers at L2 evict_last); one more warp loads every side input of the CTA's rows at
// once (dt, dt_bias, A, D, B and C of the group, x and z of the rows), computes dt', dA and
// B dt' and leaves them in shared memory; one named barrier, synced by all W + 1 warps, hands
// them over. In the row-owner kernel above every warp ran the side-input chain in series with
// the state's trip, ~0.5 us at batch 1 that no load order removed (kernels/ssu/NOTES.md).
// The name keeps ssu_fast_kernel as a prefix: the arm declares that name.
template <class ST, class IT, int W, int NL>
__global__ void __launch_bounds__(32 * (W + 1)) ssu_fast_kernel_side_warp(Args a) {
  using G = Geo<ST, NL, W>;
  constexpr int V = G::V, CPR = G::CPR, RPL = G::RPL;
  static_assert(G::kRowsPerCta <= 32, "the side warp loads one row of x per lane");
  __shared__ float sB[kN], sC[kN], sx[G::kRowsPerCta], sz[G::kRowsPerCta], sdA, sD;
  const int part = blockIdx.x % G::kCtasPerHead, bh = blockIdx.x / G::kCtasPerHead;
  const int h = bh % a.nheads, b = bh / a.nheads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int cta_row0 = part * G::kRowsPerCta;
  if (warp == W) {
    // Every load first, then the arithmetic: one trip for all of them.
    constexpr int kPerLane = kN / 32;
    float Bl[kPerLane], Cl[kPerLane], xl = 0.f, zl = 0.f;
    const long long bci = static_cast<long long>(b) * a.bc_stride + (h / (a.nheads / a.ngroups)) * kN + lane * kPerLane;
    const float dt_raw = load_w(a.dt, bh, a.weight_bf16), bias = load_w(a.dt_bias, h, a.weight_bf16);
    const float A = load_w(a.A, h, a.weight_bf16), D = load_w(a.D, h, a.weight_bf16);
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      Bl[j] = ld_io<IT>(a.B, bci + j);
      Cl[j] = ld_io<IT>(a.C, bci + j);
    }
    const long long xi = static_cast<long long>(b) * a.x_stride + h * kP + cta_row0 + lane;
    if (lane < G::kRowsPerCta) {
      xl = ld_io<IT>(a.x, xi);
      if (a.has_z) zl = ld_io<IT>(a.z, xi);
    }
    const float dt = dt_from(a, dt_raw, bias);
#pragma unroll
    for (int j = 0; j < kPerLane; ++j) {
      sB[lane * kPerLane + j] = Bl[j] * dt;
      sC[lane * kPerLane + j] = Cl[j];
    }
    if (lane < G::kRowsPerCta) {
      sx[lane] = xl;
      sz[lane] = zl;
    }
    if (lane == 0) {
      sdA = __expf(A * dt);
      sD = D;
    }
    // Synced (not arrived) on this side too: compute-sanitizer's racecheck orders a bar.arrive ->
    // bar.sync hand-off only when both sides sync (kernels/sparse_mla/NOTES.md, "racecheck and named barriers").
    asm volatile("bar.sync 1, %0;\n" ::"n"(32 * (W + 1)) : "memory");
    return;
  }
  const int cc = lane % CPR, rsub = lane / CPR;
  const int row0 = cta_row0 + warp * G::RPW;
  const int slot = a.slots[b];
  uint4* tile = reinterpret_cast<uint4*>(static_cast<ST*>(a.state) +
                                         ((static_cast<long long>(slot) * a.nheads + h) * kP + row0) * kN);
  uint4 raw[NL];
  if (slot >= 0) {
    const uint64_t last = l2_evict_last();
#pragma unroll
    for (int i = 0; i < NL; ++i) raw[i] = ld16_hint(tile + i * 32 + lane, last);
  }
  asm volatile("bar.sync 1, %0;\n" ::"n"(32 * (W + 1)) : "memory");  // the loads stay in flight
  float Bv[V], Cv[V], x[NL];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    Bv[j] = sB[cc * V + j];
    Cv[j] = sC[cc * V + j];
  }
#pragma unroll
  for (int i = 0; i < NL; ++i) x[i] = sx[warp * G::RPW + i * RPL + rsub];
  const float dA = sdA, Dh = sD;
  float acc[NL];
  update_chunks<ST, NL, CPR>(
      slot >= 0, [&](int i) { return raw[i]; }, [&](int i, uint4 v) { tile[i * 32 + lane] = v; }, dA, Bv, Cv, x, acc);
  if (cc == 0)
    store_out<IT, NL, RPL>(static_cast<IT*>(a.out) + static_cast<long long>(bh) * kP + row0 + rsub, acc, Dh, x, a.has_z,
                           [&](int i, float o) { return silu_gate_fast(o, sz[warp * G::RPW + i * RPL + rsub]); });
}

}  // namespace
}  // namespace kgate::ssu::gpu
