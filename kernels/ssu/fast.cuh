#pragma once
// ssu.fast: row owner. A 2-warp CTA owns 2 * NL * 32 / (chunks per row) rows of one head;
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
  static constexpr int CPR = kN / V;          // 16-byte chunks per row: 16 (bf16) or 32 (fp32)
  static constexpr int RPL = 32 / CPR;        // rows one warp-wide chunk covers: 2 or 1
  static constexpr int NL = NL_;              // chunks in flight per lane
  static constexpr int RPW = NL * RPL;        // rows per warp
  static constexpr int kWarps = W;  // 2, or kSmallWarps on the NL = 2 range (config.hpp)
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
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{15};
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes + 15) & ~uintptr_t{15};
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(lo), "r"(static_cast<unsigned>(hi - lo)) : "memory");
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
#pragma unroll
  for (int i = 0; i < NL; ++i) {
    float s[V];
    if (slot >= 0) Chunk<ST>::unpack(mine[i * G::kThreads], s);
    else
#pragma unroll
      for (int j = 0; j < V; ++j) s[j] = 0.f;
    acc[i] = 0.f;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      s[j] = fmaf(s[j], dA, Bv[j] * x[i]);
      acc[i] = fmaf(s[j], Cv[j], acc[i]);
    }
    if (slot >= 0) {
      if constexpr ((kMode & kStoreNormal) != 0) st16_hint(tile + i * 32 + lane, Chunk<ST>::pack(s), normal);
      else tile[i * 32 + lane] = Chunk<ST>::pack(s);
    }
  }
  // Row sums over the CPR lanes of each row; independent across i, so the shuffles overlap.
#pragma unroll
  for (int o = CPR / 2; o > 0; o >>= 1)
#pragma unroll
    for (int i = 0; i < NL; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if (cc == 0) {
    // The output row from bh: its index expression moves the register allocation (kernels/ssu/NOTES.md,
    // "The family refactor").
    const long long out_row = bh;
    IT* out = static_cast<IT*>(a.out) + out_row * kP + row0 + rsub;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      float o = acc[i] + Dh * x[i];
      if (a.has_z) {
        const float zz = early ? zv[i] : ld_io<IT>(a.z, x_index() + i * RPL);
        o = (kMode & kFastGate) ? silu_gate_fast(o, zz) : silu_gate(o, zz);
      }
      out[i * RPL] = from_f<IT>(o);
    }
  }
}

}  // namespace
}  // namespace kgate::ssu::gpu
