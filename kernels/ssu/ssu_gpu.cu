// ssu GPU arms:
//  - ssu.baseline: the structure of the widely used Triton selective_state_update kernel at its
//    upstream tuning for dstate 128 (BLOCK_SIZE_M = 8, num_warps = 4): a grid over
//    (dim tiles, batch, heads); each program loads an 8 x 128 state tile, updates it, reduces
//    over dstate. 16-byte state accesses (what Triton emits for this tile).
//  - ssu.floor: copies exactly the state bytes the update reads and writes (same slot table,
//    same tiles, same geometry as fast), 16-byte streaming loads/stores: the bandwidth anchor.
//  - ssu.fast: row owner. A 2-warp CTA owns 2 * NL * 32 / (chunks per row) rows of one head;
//    every lane copies its NL 16-byte state chunks global -> shared with cp.async before any
//    arithmetic (NL = 2, 4 or 8 by problem size), side inputs (x, B, C, z, dt) use scalar loads
//    (any alignment), B and C stay in registers, the updated state is streamed back with
//    evict-first stores. See kernels/ssu/NOTES.md.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "harness/gpu/check.hpp"
#include "kernels/ssu/ssu_gpu.cuh"

namespace kgate::ssu::gpu {
namespace {

template <class T>
__device__ __forceinline__ float ld_io(const void* p, long long i) {
  return to_f(static_cast<const T*>(p)[i]);
}

// Unpacks a 16-byte chunk into V floats and back.
template <class ST> struct Chunk;
template <> struct Chunk<__nv_bfloat16> {
  static constexpr int V = 8;
  __device__ static void unpack(const uint4& r, float* f) {
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 t = __bfloat1622float2(h[i]);
      f[2 * i] = t.x;
      f[2 * i + 1] = t.y;
    }
  }
  __device__ static uint4 pack(const float* f) {
    uint4 r;
    __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&r);
#pragma unroll
    for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
    return r;
  }
};
template <> struct Chunk<float> {
  static constexpr int V = 4;
  __device__ static void unpack(const uint4& r, float* f) {
    f[0] = __uint_as_float(r.x);
    f[1] = __uint_as_float(r.y);
    f[2] = __uint_as_float(r.z);
    f[3] = __uint_as_float(r.w);
  }
  __device__ static uint4 pack(const float* f) {
    return make_uint4(__float_as_uint(f[0]), __float_as_uint(f[1]), __float_as_uint(f[2]), __float_as_uint(f[3]));
  }
};

// ---------------------------------------------------------------- baseline (Triton structure)
constexpr int kBaseRows = 8;      // BLOCK_SIZE_M
constexpr int kBaseThreads = 128;  // num_warps = 4

template <class ST, class IT>
__global__ void __launch_bounds__(kBaseThreads) ssu_baseline_kernel(Args a) {
  constexpr int V = Chunk<ST>::V;
  constexpr int TPR = kBaseThreads / kBaseRows;  // 16 threads per row
  constexpr int EPT = kN / TPR;                   // 8 elements per thread
  const int b = blockIdx.y, h = blockIdx.z;
  const int g = h / (a.nheads / a.ngroups);
  const int r = threadIdx.x / TPR, c0 = (threadIdx.x % TPR) * EPT;
  const int d = blockIdx.x * kBaseRows + r;
  const int slot = a.slots[b];
  const float dt = dt_eff(a, b, h);
  const float dA = __expf(load_w(a.A, h, a.weight_bf16) * dt);
  const long long xi = static_cast<long long>(b) * a.x_stride + h * kP + d;
  const float x = ld_io<IT>(a.x, xi);
  const long long bci = static_cast<long long>(b) * a.bc_stride + g * kN + c0;
  ST* tile = static_cast<ST*>(a.state) + ((static_cast<long long>(slot) * a.nheads + h) * kP + d) * kN + c0;
  float s[EPT];
#pragma unroll
  for (int j = 0; j < EPT; j += V) {
    if (slot >= 0) Chunk<ST>::unpack(*reinterpret_cast<const uint4*>(tile + j), s + j);
    else
#pragma unroll
      for (int k = 0; k < V; ++k) s[j + k] = 0.f;
  }
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < EPT; ++j) {
    s[j] = s[j] * dA + dt * ld_io<IT>(a.B, bci + j) * x;
    acc += s[j] * ld_io<IT>(a.C, bci + j);
  }
  if (slot >= 0)
#pragma unroll
    for (int j = 0; j < EPT; j += V) *reinterpret_cast<uint4*>(tile + j) = Chunk<ST>::pack(s + j);
#pragma unroll
  for (int o = TPR / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (threadIdx.x % TPR == 0) {
    float out = acc + load_w(a.D, h, a.weight_bf16) * x;
    if (a.has_z) out = silu_gate(out, ld_io<IT>(a.z, xi));
    static_cast<IT*>(a.out)[(static_cast<long long>(b) * a.nheads + h) * kP + d] = from_f<IT>(out);
  }
}

// ---------------------------------------------------------------- fast (row owner)
// Geometry: every lane moves NL 16-byte chunks of state, so a warp owns RPW = NL * (32 / CPR)
// rows and a 2-warp CTA owns 2 * RPW rows. Small CTAs keep the last wave's tail short.
template <class ST, int NL_>
struct Geo {
  static constexpr int V = Chunk<ST>::V;
  static constexpr int CPR = kN / V;          // 16-byte chunks per row: 16 (bf16) or 32 (fp32)
  static constexpr int RPL = 32 / CPR;        // rows one warp-wide chunk covers: 2 or 1
  static constexpr int NL = NL_;              // chunks in flight per lane
  static constexpr int RPW = NL * RPL;        // rows per warp
  static constexpr int kWarps = 2;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRowsPerCta = kWarps * RPW;
  static constexpr int kCtasPerHead = kP / kRowsPerCta;
};

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}

// The state stream goes global -> shared through cp.async, so bytes in flight cost shared
// memory, not registers: occupancy is set by the small register footprint of the arithmetic.
// Each lane reads back only the chunks it copied itself, so no barrier is needed.
// The v3 kernel (state copy first, then the side inputs; z read at the end): NL = 2 and 8.
template <class ST, class IT, int NL>
__global__ void __launch_bounds__(64, sizeof(ST) == 2 ? 16 : (NL == 8 ? 20 : 24)) ssu_fast_kernel(Args a) {
  using G = Geo<ST, NL>;
  constexpr int V = G::V, CPR = G::CPR, RPL = G::RPL;
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
  if (slot >= 0) {
#pragma unroll
    for (int i = 0; i < NL; ++i) cp_async16(mine + i * G::kThreads, tile + i * 32 + lane);
  }
  // Side inputs while the state streams in.
  const int g = h / (a.nheads / a.ngroups);
  const float dt = dt_eff(a, b, h);
  const float dA = __expf(load_w(a.A, h, a.weight_bf16) * dt);
  const long long bci = static_cast<long long>(b) * a.bc_stride + g * kN + cc * V;
  float Bv[V], Cv[V];
#pragma unroll
  for (int j = 0; j < V; ++j) {
    Bv[j] = ld_io<IT>(a.B, bci + j) * dt;
    Cv[j] = ld_io<IT>(a.C, bci + j);
  }
  const long long xrow = static_cast<long long>(b) * a.x_stride + h * kP + row0 + rsub;
  float x[NL], acc[NL];
#pragma unroll
  for (int i = 0; i < NL; ++i) x[i] = ld_io<IT>(a.x, xrow + i * RPL);
  const float Dh = load_w(a.D, h, a.weight_bf16);
  cp_async_wait_all();
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
    if (slot >= 0) __stcs(tile + i * 32 + lane, Chunk<ST>::pack(s));
  }
  // Row sums over the CPR lanes of each row; independent across i, so the shuffles overlap.
#pragma unroll
  for (int o = CPR / 2; o > 0; o >>= 1)
#pragma unroll
    for (int i = 0; i < NL; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if (cc == 0) {
    IT* out = static_cast<IT*>(a.out) + (static_cast<long long>(b) * a.nheads + h) * kP + row0 + rsub;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      float o = acc[i] + Dh * x[i];
      if (a.has_z) o = silu_gate(o, ld_io<IT>(a.z, xrow + i * RPL));
      out[i * RPL] = from_f<IT>(o);
    }
  }
}

// Side-row prefetch (kPrefetch): the side inputs (x, z, B, C, dt) are small per batch row but
// scattered next to the state stream; read one 128-byte row at a time by each CTA they cost
// far more than their bytes. The first CTA of batch row b asks L2 for the whole side rows of
// batch row b + ahead (one bulk prefetch per input, evict_last so the state stream does not push
// them out), ahead being about 24 MB of state traffic; the CTAs of batch row 0 cover rows
// 0 .. ahead - 1. By the time a CTA runs, its side loads hit L2.
__device__ __forceinline__ void bulk_prefetch_l2(const void* p, long long bytes, uint64_t policy) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{15};
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes + 15) & ~uintptr_t{15};
  asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;\n" ::"l"(lo), "r"(static_cast<unsigned>(hi - lo)),
               "l"(policy)
               : "memory");
}
template <class ST, class IT>
__device__ __forceinline__ void prefetch_side_rows(const Args& a, int b, int h, int part) {
  if (part != 0 || threadIdx.x != 0) return;
  const long long row_state = static_cast<long long>(a.nheads) * kP * kN * sizeof(ST) * 2;
  const int ahead = static_cast<int>(min(64LL, max(2LL, (24LL << 20) / row_state)));
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
  auto row = [&](int bb) {
    if (bb >= a.batch) return;
    const long long xs = static_cast<long long>(a.nheads) * kP * sizeof(IT);
    bulk_prefetch_l2(static_cast<const IT*>(a.x) + bb * a.x_stride, xs, policy);
    if (a.has_z) bulk_prefetch_l2(static_cast<const IT*>(a.z) + bb * a.x_stride, xs, policy);
    const long long bcs = static_cast<long long>(a.ngroups) * kN * sizeof(IT);
    bulk_prefetch_l2(static_cast<const IT*>(a.B) + bb * a.bc_stride, bcs, policy);
    bulk_prefetch_l2(static_cast<const IT*>(a.C) + bb * a.bc_stride, bcs, policy);
    const int wsz = a.weight_bf16 ? 2 : 4;
    bulk_prefetch_l2(static_cast<const char*>(a.dt) + static_cast<long long>(bb) * a.nheads * wsz, a.nheads * wsz, policy);
  };
  if (b == 0)
    for (int bb = h; bb < ahead; bb += a.nheads) row(bb);
  else if (h == 0)
    row(b + ahead);
}

// The mid-range kernel (NL = 4) and the diagnostics. Mode bits:
//   kEarly: the side inputs (z included) are issued before the state copy, so their latency
//           overlaps the slot load's and z is in registers before the reduction; without it
//           they follow the copy (the v3 order) and z is read at the end.
//   kVecBC: B and C with one vector load per lane slice when the view is aligned.
//   kTight: at most 48 registers (20 CTAs per SM instead of 16 for BF16 state).
//   kNoSide, kNoReduce, kCopy: diagnostics only (wrong outputs on purpose; never a candidate):
//           side inputs replaced by constants / no row reduction / state bytes moved only.
//   kStageBC: B and C rows staged per warp through cp.async into shared memory (issued before
//           the slot-dependent state copy, so their latency hides behind the slot load's), read
//           back per row: no B/C registers held across the copy. Needs 16-byte aligned B/C views.
//   kOcc:   at most 40 registers (24 CTAs per SM for BF16 state).
//   kPrefetch: side rows prefetched to L2 ahead of their CTAs (prefetch_side_rows).
enum : int { kEarly = 1, kVecBC = 2, kNoSide = 4, kNoReduce = 8, kCopy = 16, kTight = 32, kStageBC = 64, kOcc = 128, kPrefetch = 256 };

// V consecutive IT values at a p aligned to their size (V * sizeof(IT) bytes), as floats.
template <class IT, int V>
__device__ __forceinline__ void slice_to_f(const IT* p, float* f) {
  constexpr int kSlice = V * sizeof(IT);
  using Word = std::conditional_t<kSlice >= 16, uint4, uint2>;
  constexpr int W = kSlice / sizeof(Word), E = sizeof(Word) / sizeof(IT);
#pragma unroll
  for (int w = 0; w < W; ++w) {
    const Word r = reinterpret_cast<const Word*>(p)[w];
    const IT* e = reinterpret_cast<const IT*>(&r);
#pragma unroll
    for (int j = 0; j < E; ++j) f[w * E + j] = to_f(e[j]);
  }
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

template <class ST, class IT, int NL, int kMode>
__global__ void __launch_bounds__(64, (kMode & kOcc) ? 24 : sizeof(ST) == 4 ? (NL == 8 ? 20 : 24) : (kMode & kTight) ? 20 : 16)
    ssu_fast_mid_kernel(Args a) {
  using G = Geo<ST, NL>;
  constexpr int V = G::V, CPR = G::CPR, RPL = G::RPL;
  constexpr bool early = kMode & kEarly, noside = kMode & kNoSide, copy = kMode & kCopy, staged = kMode & kStageBC;
  constexpr int kBCChunks = kN * static_cast<int>(sizeof(IT)) / 16;  // 16-byte chunks in one B (or C) row
  static_assert(!staged || early, "B/C staging is issued with the early side inputs");
  __shared__ uint4 stage[G::kThreads * NL];
  __shared__ uint4 sbc[staged ? G::kWarps : 1][staged ? 2 * kBCChunks : 1];
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
    if (slot >= 0)
#pragma unroll
      for (int i = 0; i < NL; ++i) cp_async16(mine + i * G::kThreads, tile + i * 32 + lane);
  };
  if constexpr (copy) {
    copy_state();
    cp_async_wait_all();
    if (slot >= 0)
#pragma unroll
      for (int i = 0; i < NL; ++i) __stcs(tile + i * 32 + lane, mine[i * G::kThreads]);
    return;
  } else if constexpr (noside) {
    copy_state();
    dt = 0.01f;
    dA = 0.99f;
    Dh = 1.f;
#pragma unroll
    for (int j = 0; j < V; ++j) Bv[j] = Cv[j] = 1.f;
#pragma unroll
    for (int i = 0; i < NL; ++i) x[i] = 1.f;
  } else if constexpr (!early) {
    // v3 order: state copy, then the side inputs while it streams in.
    copy_state();
    dt = dt_eff(a, b, h);
    dA = __expf(load_w(a.A, h, a.weight_bf16) * dt);
    load_bc<IT, V>(a, bc_index(), dt, Bv, Cv, kMode & kVecBC);
    const long long xrow = x_index();
#pragma unroll
    for (int i = 0; i < NL; ++i) x[i] = ld_io<IT>(a.x, xrow + i * RPL);
    Dh = load_w(a.D, h, a.weight_bf16);
  } else {
    const float dt_raw = load_w(a.dt, bh, a.weight_bf16), dt_bias = load_w(a.dt_bias, h, a.weight_bf16);
    const float A = load_w(a.A, h, a.weight_bf16);
    Dh = load_w(a.D, h, a.weight_bf16);
    if constexpr (staged) {
      const long long row = static_cast<long long>(b) * a.bc_stride + (h / (a.nheads / a.ngroups)) * kN;
      const uint4* Bg = reinterpret_cast<const uint4*>(static_cast<const IT*>(a.B) + row);
      const uint4* Cg = reinterpret_cast<const uint4*>(static_cast<const IT*>(a.C) + row);
#pragma unroll
      for (int c = lane; c < 2 * kBCChunks; c += 32)
        cp_async16(&sbc[warp][c], c < kBCChunks ? Bg + c : Cg + (c - kBCChunks));
    } else {
      load_bc<IT, V>(a, bc_index(), 1.f, Bv, Cv, kMode & kVecBC);
    }
    const long long xrow = x_index();
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      x[i] = ld_io<IT>(a.x, xrow + i * RPL);
      zv[i] = a.has_z && cc == 0 ? ld_io<IT>(a.z, xrow + i * RPL) : 0.f;
    }
    copy_state();
    dt = dt_from(a, dt_raw, dt_bias);
    dA = __expf(A * dt);
    if constexpr (!staged)
#pragma unroll
      for (int j = 0; j < V; ++j) Bv[j] *= dt;
  }
  cp_async_wait_all();
  if constexpr (staged) __syncwarp();  // B/C chunks copied by the warp's other lanes are visible
  float acc[NL];
#pragma unroll
  for (int i = 0; i < NL; ++i) {
    float s[V];
    if (slot >= 0) Chunk<ST>::unpack(mine[i * G::kThreads], s);
    else
#pragma unroll
      for (int j = 0; j < V; ++j) s[j] = 0.f;
    acc[i] = 0.f;
    if constexpr (staged) {
      // This lane's V-element slices of B and C, read back per row (not held across the loop).
      const IT* sB = reinterpret_cast<const IT*>(&sbc[warp][0]) + cc * V;
      float Bs[V], Cs[V];
      slice_to_f<IT, V>(sB, Bs);
      slice_to_f<IT, V>(sB + kN, Cs);
      const float dtx = dt * x[i];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        s[j] = fmaf(s[j], dA, Bs[j] * dtx);
        acc[i] = fmaf(s[j], Cs[j], acc[i]);
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) {
        s[j] = fmaf(s[j], dA, Bv[j] * x[i]);
        acc[i] = fmaf(s[j], Cv[j], acc[i]);
      }
    }
    if (slot >= 0) __stcs(tile + i * 32 + lane, Chunk<ST>::pack(s));
  }
  // Row sums over the CPR lanes of each row; independent across i, so the shuffles overlap.
  if constexpr (!(kMode & kNoReduce))
#pragma unroll
    for (int o = CPR / 2; o > 0; o >>= 1)
#pragma unroll
      for (int i = 0; i < NL; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if (cc == 0) {
    IT* out = static_cast<IT*>(a.out) + static_cast<long long>(bh) * kP + row0 + rsub;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      float o = acc[i] + Dh * x[i];
      if (!noside && a.has_z) o = silu_gate(o, early ? zv[i] : ld_io<IT>(a.z, x_index() + i * RPL));
      out[i * RPL] = from_f<IT>(o);
    }
  }
}

// ---------------------------------------------------------------- lean (v15): few registers, every row input staged
// The mid-range kernel with nothing held in registers across the state copy but scalars: each
// warp stages its B and C rows and its x and z rows through cp.async into shared memory (issued
// before the slot-dependent state copy, so their latency hides behind the slot load's), and every
// row reads its B/C slice back from shared memory (asm volatile: the compiler may not hoist the
// reads out of the row loop into registers). The aim is <= 40 registers without spilling, so 24
// BF16 CTAs fit per SM instead of 16: a third more state bytes in flight. Needs 16-byte aligned
// B/C rows and x/z rows aligned to their per-warp slice; the launcher checks.
template <int kBytes>
__device__ __forceinline__ void cp_async_n(void* smem, const void* gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (kBytes == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(s), "l"(gmem), "n"(kBytes) : "memory");
}
// V consecutive IT values at the shared address p (aligned to V * sizeof(IT)), as floats; a fresh
// read every call.
template <class IT, int V>
__device__ __forceinline__ void smem_slice(const IT* p, float* f) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(p));
  constexpr int kSlice = V * sizeof(IT);
  uint32_t w[kSlice / 4];
  if constexpr (kSlice == 8) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(w[0]), "=r"(w[1]) : "r"(s));
  } else {
#pragma unroll
    for (int q = 0; q < kSlice / 16; ++q)
      asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(w[4 * q]), "=r"(w[4 * q + 1]), "=r"(w[4 * q + 2]), "=r"(w[4 * q + 3])
                   : "r"(s + 16 * q));
  }
  const IT* e = reinterpret_cast<const IT*>(w);
#pragma unroll
  for (int j = 0; j < V; ++j) f[j] = to_f(e[j]);
}

template <class ST, class IT, int NL>
struct Lean {
  using G = Geo<ST, NL>;
  static constexpr int kBCChunks = kN * static_cast<int>(sizeof(IT)) / 16;  // 16-byte chunks per B row
  static constexpr int kXZ = G::RPW * static_cast<int>(sizeof(IT));       // bytes of one warp's x rows
  static constexpr int kXZCopy = kXZ > 16 ? 16 : kXZ;                      // cp.async size
  static constexpr int kXZCopies = kXZ / kXZCopy;
  static_assert(kXZ % 4 == 0 && kXZCopies <= 8, "x/z slices");
};

template <class ST, class IT, int NL, bool kPf>
__global__ void __launch_bounds__(64, NL == 8 ? 20 : 32) ssu_fast_lean_kernel(Args a) {  // 32 CTAs: <= 32 registers
  using G = Geo<ST, NL>;
  using L = Lean<ST, IT, NL>;
  constexpr int V = G::V, CPR = G::CPR, RPL = G::RPL;
  __shared__ uint4 stage[G::kThreads * NL];
  __shared__ uint4 sbc[G::kWarps][2 * L::kBCChunks];
  __shared__ uint4 sxz[G::kWarps][2][(L::kXZ + 15) / 16];
  const int part = blockIdx.x % G::kCtasPerHead, bh = blockIdx.x / G::kCtasPerHead;
  const int h = bh % a.nheads, b = bh / a.nheads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int cc = lane % CPR, rsub = lane / CPR;
  const int row0 = part * G::kRowsPerCta + warp * G::RPW;
  if constexpr (kPf) prefetch_side_rows<ST, IT>(a, b, h, part);
  // Side rows first: they do not wait for the slot.
  {
    const long long row = static_cast<long long>(b) * a.bc_stride + (h / (a.nheads / a.ngroups)) * kN;
    const uint4* Bg = reinterpret_cast<const uint4*>(static_cast<const IT*>(a.B) + row);
    const uint4* Cg = reinterpret_cast<const uint4*>(static_cast<const IT*>(a.C) + row);
#pragma unroll
    for (int c = lane; c < 2 * L::kBCChunks; c += 32)
      cp_async16(&sbc[warp][c], c < L::kBCChunks ? Bg + c : Cg + (c - L::kBCChunks));
    const long long xi = static_cast<long long>(b) * a.x_stride + h * kP + row0;
    if (lane < L::kXZCopies)
      cp_async_n<L::kXZCopy>(reinterpret_cast<char*>(&sxz[warp][0][0]) + lane * L::kXZCopy,
                             reinterpret_cast<const char*>(static_cast<const IT*>(a.x) + xi) + lane * L::kXZCopy);
    else if (a.has_z && lane >= 16 && lane < 16 + L::kXZCopies)
      cp_async_n<L::kXZCopy>(reinterpret_cast<char*>(&sxz[warp][1][0]) + (lane - 16) * L::kXZCopy,
                             reinterpret_cast<const char*>(static_cast<const IT*>(a.z) + xi) + (lane - 16) * L::kXZCopy);
  }
  const float dt_raw = load_w(a.dt, bh, a.weight_bf16), dt_bias = load_w(a.dt_bias, h, a.weight_bf16);
  const float A = load_w(a.A, h, a.weight_bf16), Dh = load_w(a.D, h, a.weight_bf16);
  const int slot = a.slots[b];
  uint4* tile = reinterpret_cast<uint4*>(static_cast<ST*>(a.state) +
                                         ((static_cast<long long>(slot) * a.nheads + h) * kP + row0) * kN) + lane;
  uint4* mine = stage + threadIdx.x;
  if (slot >= 0)
#pragma unroll
    for (int i = 0; i < NL; ++i) cp_async16(mine + i * G::kThreads, tile + i * 32);
  const float dt = dt_from(a, dt_raw, dt_bias);
  const float dA = __expf(A * dt);
  cp_async_wait_all();
  __syncwarp();  // side rows copied by the warp's other lanes are visible
  const IT* sB = reinterpret_cast<const IT*>(&sbc[warp][0]) + cc * V;
  const IT* sx = reinterpret_cast<const IT*>(&sxz[warp][0][0]) + rsub;
  const IT* sz = reinterpret_cast<const IT*>(&sxz[warp][1][0]) + rsub;
  IT* out = static_cast<IT*>(a.out) + static_cast<long long>(bh) * kP + row0 + rsub;
  // One row chunk at a time, reduced and written before the next: only one row's values live.
#pragma unroll 1
  for (int i = 0; i < NL; ++i) {
    float s[V], Bs[V], Cs[V];
    if (slot >= 0) Chunk<ST>::unpack(mine[i * G::kThreads], s);
    else
#pragma unroll
      for (int j = 0; j < V; ++j) s[j] = 0.f;
    smem_slice<IT, V>(sB, Bs);
    smem_slice<IT, V>(sB + kN, Cs);
    const float xv = to_f(sx[i * RPL]);
    const float dtx = dt * xv;
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      s[j] = fmaf(s[j], dA, Bs[j] * dtx);
      acc = fmaf(s[j], Cs[j], acc);
    }
    if (slot >= 0) __stcs(tile + i * 32, Chunk<ST>::pack(s));
#pragma unroll
    for (int o = CPR / 2; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (cc == 0) {
      float y = acc + Dh * xv;
      if (a.has_z) y = silu_gate(y, to_f(sz[i * RPL]));
      out[i * RPL] = from_f<IT>(y);
    }
  }
}

// ---------------------------------------------------------------- floor (state bytes in and out)
// Same geometry and hints as fast: the bytes fast must move, moved with nothing else.
template <class ST>
__global__ void __launch_bounds__(64, 16) ssu_floor_kernel(Args a) {
  using G = Geo<ST, 8>;
  const int part = blockIdx.x % G::kCtasPerHead, bh = blockIdx.x / G::kCtasPerHead;
  const int h = bh % a.nheads, b = bh / a.nheads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int slot = a.slots[b];
  if (slot < 0) return;
  uint4* tile = reinterpret_cast<uint4*>(static_cast<ST*>(a.state) +
                                         ((static_cast<long long>(slot) * a.nheads + h) * kP + part * G::kRowsPerCta +
                                          warp * G::RPW) * kN);
  uint4 raw[G::NL];
#pragma unroll
  for (int i = 0; i < G::NL; ++i) raw[i] = __ldcs(tile + i * 32 + lane);
#pragma unroll
  for (int i = 0; i < G::NL; ++i) __stcs(tile + i * 32 + lane, raw[i]);
}

// ---------------------------------------------------------------- streaming floor (second anchor)
// The same state bytes moved by persistent warps: each walks 4 KiB warp tiles round-robin over
// the grid (so the whole GPU reads one window of the pool at a time) and keeps S - 1 tiles in
// flight through cp.async commit groups. Measured 2.4-5.4 % faster than ssu.floor at BF16
// batch >= 128 and up to 7 % slower at batch 1-4 (kernels/ssu/NOTES.md, v5a's copy).
constexpr int kStreamWarps = 4, kStreamStages = 3;
template <class ST>
constexpr int stream_smem_bytes() { return kStreamWarps * kStreamStages * 8 * 32 * 16; }

template <class ST>
__global__ void __launch_bounds__(32 * kStreamWarps, 4) ssu_floor_stream_kernel(Args a, int tiles, int nwarps) {
  using G = Geo<ST, 8>;
  constexpr int NL = G::NL, RPW = G::RPW, PPH = kP / RPW, S = kStreamStages;
  extern __shared__ uint4 stream_smem[];
  const int lane = threadIdx.x & 31;
  uint4* mine = stream_smem + (threadIdx.x >> 5) * (S * NL * 32) + lane;
  int t = blockIdx.x * kStreamWarps + (threadIdx.x >> 5);
  auto slot_of = [&](int tt) { return tt < tiles ? a.slots[tt / PPH / a.nheads] : -1; };
  auto tile_of = [&](int tt, int slot) {
    const int part = tt % PPH, h = (tt / PPH) % a.nheads;
    return reinterpret_cast<uint4*>(static_cast<ST*>(a.state) +
                                    ((static_cast<long long>(slot) * a.nheads + h) * kP + part * RPW) * kN) + lane;
  };
  auto issue = [&](int tt, int slot, int stage) {
    if (tt < tiles && slot >= 0) {
      const uint4* src = tile_of(tt, slot);
#pragma unroll
      for (int i = 0; i < NL; ++i) cp_async16(mine + (stage * NL + i) * 32, src + i * 32);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  int sl[S];
#pragma unroll
  for (int j = 0; j < S; ++j) sl[j] = slot_of(t + j * nwarps);
#pragma unroll
  for (int j = 0; j < S - 1; ++j) issue(t + j * nwarps, sl[j], j);
  for (int k = 0; t < tiles; ++k, t += nwarps) {
    const int stage = k % S;
    issue(t + (S - 1) * nwarps, sl[S - 1], (k + S - 1) % S);
    const int slot = sl[0];
#pragma unroll
    for (int j = 0; j < S - 1; ++j) sl[j] = sl[j + 1];
    sl[S - 1] = slot_of(t + S * nwarps);
    asm volatile("cp.async.wait_group %0;\n" ::"n"(S - 1) : "memory");
    if (slot >= 0) {
      uint4* dst = tile_of(t, slot);
#pragma unroll
      for (int i = 0; i < NL; ++i) __stcs(dst + i * 32, mine[(stage * NL + i) * 32]);
    }
  }
}

// ---------------------------------------------------------------- v10: persistent, all inputs async
// The streaming copy's walk (round-robin 4 KiB warp tiles, S - 1 tiles in flight through
// cp.async) with everything a tile needs staged the same way: its state, its B and C rows, its
// x and z rows, and the 4-byte words holding dt, dt_bias, A and D. The slot table is read into
// shared memory once per CTA. So a warp never waits on a load except the pipeline's own
// wait_group. Lanes copy side inputs for each other: __syncwarp after the wait (visibility) and
// before reusing a stage (no lane still reads it). Needs 16-byte aligned side views and batch
// <= kV10MaxBatch; the launcher falls back to the v7 path otherwise.
constexpr int kV10Warps = 4, kV10Stages = 3, kV10MaxBatch = 4096;
template <class ST, class IT>
struct V10 {
  using G = Geo<ST, 8>;
  static constexpr int NL = 8, RPW = G::RPW, PPH = kP / RPW;
  static constexpr int kState = NL * 32 * 16;                 // 4 KiB
  static constexpr int kBC = kN * sizeof(IT);                 // one of B, C: 256 or 512 B
  static constexpr int kXZ = RPW * sizeof(IT);                // one of x, z: 16-64 B
  static constexpr int kStage = kState + 2 * kBC + 2 * kXZ + 16;
  static constexpr int kWarpBytes = kV10Stages * kStage;
  static constexpr int kMaxSmem = kV10Warps * kWarpBytes + kV10MaxBatch * 4;
  static_assert(kXZ % 16 == 0 && kStage % 16 == 0, "16-byte chunks");
};

__device__ __forceinline__ void cp_async4(void* smem, const void* gmem) {
  unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem) : "memory");
}
// A weight (bf16 or fp32) from the 4-byte word that holds it; `odd` picks a bf16's high half.
__device__ __forceinline__ float weight_from_word(uint32_t w, bool bf16, bool odd) {
  return bf16 ? __uint_as_float((odd ? w >> 16 : w & 0xffffu) << 16) : __uint_as_float(w);
}
__device__ __forceinline__ const void* word_of(const void* base, long long i, bool bf16) {
  const char* p = static_cast<const char*>(base) + i * (bf16 ? 2 : 4);
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{3});
}

template <class ST, class IT>
__global__ void __launch_bounds__(32 * kV10Warps, 3) ssu_v10_kernel(Args a, int tiles, int nwarps) {
  using K = V10<ST, IT>;
  constexpr int NL = K::NL, RPW = K::RPW, PPH = K::PPH, S = kV10Stages;
  constexpr int V = K::G::V, CPR = K::G::CPR, RPL = K::G::RPL;
  extern __shared__ __align__(16) unsigned char v10_smem[];
  int* s_slots = reinterpret_cast<int*>(v10_smem + kV10Warps * K::kWarpBytes);
  for (int i = threadIdx.x; i < a.batch; i += blockDim.x) s_slots[i] = a.slots[i];
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, cc = lane % CPR, rsub = lane / CPR;
  unsigned char* wbase = v10_smem + warp * K::kWarpBytes;
  auto stage_ptr = [&](int st) { return wbase + st * K::kStage; };
  struct Tile { int part, h, b, slot; };
  auto decode = [&](int tt) {
    Tile d;
    d.part = tt % PPH;
    const int bh = tt / PPH;
    d.h = bh % a.nheads;
    d.b = bh / a.nheads;
    d.slot = s_slots[d.b];
    return d;
  };
  auto state_of = [&](const Tile& d) {
    return reinterpret_cast<uint4*>(static_cast<ST*>(a.state) +
                                    ((static_cast<long long>(d.slot) * a.nheads + d.h) * kP + d.part * RPW) * kN);
  };
  auto issue = [&](int tt, int st) {
    if (tt < tiles) {
      const Tile d = decode(tt);
      unsigned char* sp = stage_ptr(st);
      if (d.slot >= 0) {
        const uint4* src = state_of(d) + lane;
        uint4* dst = reinterpret_cast<uint4*>(sp) + lane;
#pragma unroll
        for (int i = 0; i < NL; ++i) cp_async16(dst + i * 32, src + i * 32);
      }
      const int g = d.h / (a.nheads / a.ngroups);
      const char* Bg = static_cast<const char*>(a.B) + (static_cast<long long>(d.b) * a.bc_stride + g * kN) * sizeof(IT);
      const char* Cg = static_cast<const char*>(a.C) + (static_cast<long long>(d.b) * a.bc_stride + g * kN) * sizeof(IT);
      unsigned char* sB = sp + K::kState;
      unsigned char* sC = sB + K::kBC;
      for (int c = lane; c < K::kBC / 16; c += 32) {
        cp_async16(sB + 16 * c, Bg + 16 * c);
        cp_async16(sC + 16 * c, Cg + 16 * c);
      }
      const long long xi = static_cast<long long>(d.b) * a.x_stride + d.h * kP + d.part * RPW;
      unsigned char* sx = sC + K::kBC;
      unsigned char* sz = sx + K::kXZ;
      if (lane < K::kXZ / 16) {
        cp_async16(sx + 16 * lane, static_cast<const char*>(a.x) + xi * sizeof(IT) + 16 * lane);
        if (a.has_z) cp_async16(sz + 16 * lane, static_cast<const char*>(a.z) + xi * sizeof(IT) + 16 * lane);
      }
      uint32_t* sw = reinterpret_cast<uint32_t*>(sz + K::kXZ);
      const bool wb = a.weight_bf16;
      if (lane == 28) cp_async4(sw + 0, word_of(a.dt, static_cast<long long>(d.b) * a.nheads + d.h, wb));
      if (lane == 29) cp_async4(sw + 1, word_of(a.dt_bias, d.h, wb));
      if (lane == 30) cp_async4(sw + 2, word_of(a.A, d.h, wb));
      if (lane == 31) cp_async4(sw + 3, word_of(a.D, d.h, wb));
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  };
  int t = blockIdx.x * kV10Warps + warp;
#pragma unroll
  for (int j = 0; j < S - 1; ++j) issue(t + j * nwarps, j);
  for (int k = 0; t < tiles; ++k, t += nwarps) {
    __syncwarp();  // every lane is done with the stage the next copy overwrites
    issue(t + (S - 1) * nwarps, (k + S - 1) % S);
    asm volatile("cp.async.wait_group %0;\n" ::"n"(S - 1) : "memory");
    __syncwarp();  // side inputs copied by other lanes are visible
    const Tile d = decode(t);
    const unsigned char* sp = stage_ptr(k % S);
    const IT* sB = reinterpret_cast<const IT*>(sp + K::kState);
    const IT* sC = reinterpret_cast<const IT*>(sp + K::kState + K::kBC);
    const IT* sx = reinterpret_cast<const IT*>(sp + K::kState + 2 * K::kBC);
    const IT* sz = sx + RPW;
    const uint32_t* sw = reinterpret_cast<const uint32_t*>(sp + K::kState + 2 * K::kBC + 2 * K::kXZ);
    const bool wb = a.weight_bf16;
    const long long bhi = static_cast<long long>(d.b) * a.nheads + d.h;
    const float dt = dt_from(a, weight_from_word(sw[0], wb, (reinterpret_cast<uintptr_t>(a.dt) + bhi * 2) & 2),
                             weight_from_word(sw[1], wb, (reinterpret_cast<uintptr_t>(a.dt_bias) + d.h * 2) & 2));
    const float dA = __expf(weight_from_word(sw[2], wb, (reinterpret_cast<uintptr_t>(a.A) + d.h * 2) & 2) * dt);
    const float Dh = weight_from_word(sw[3], wb, (reinterpret_cast<uintptr_t>(a.D) + d.h * 2) & 2);
    float Bv[V], Cv[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
      Bv[j] = to_f(sB[cc * V + j]) * dt;
      Cv[j] = to_f(sC[cc * V + j]);
    }
    uint4* dst = d.slot >= 0 ? state_of(d) + lane : nullptr;
    const uint4* ss = reinterpret_cast<const uint4*>(sp) + lane;
    float acc[NL];
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      const float xv = to_f(sx[rsub + i * RPL]);
      float s[V];
      if (d.slot >= 0) Chunk<ST>::unpack(ss[i * 32], s);
      else
#pragma unroll
        for (int j = 0; j < V; ++j) s[j] = 0.f;
      acc[i] = 0.f;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        s[j] = fmaf(s[j], dA, Bv[j] * xv);
        acc[i] = fmaf(s[j], Cv[j], acc[i]);
      }
      if (d.slot >= 0) __stcs(dst + i * 32, Chunk<ST>::pack(s));
    }
#pragma unroll
    for (int o = CPR / 2; o > 0; o >>= 1)
#pragma unroll
      for (int i = 0; i < NL; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
    if (cc == 0) {
      IT* out = static_cast<IT*>(a.out) + bhi * kP + d.part * RPW + rsub;
#pragma unroll
      for (int i = 0; i < NL; ++i) {
        float o = acc[i] + Dh * to_f(sx[rsub + i * RPL]);
        if (a.has_z) o = silu_gate(o, to_f(sz[rsub + i * RPL]));
        out[i * RPL] = from_f<IT>(o);
      }
    }
  }
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

template <template <class, class> class K, class F>
void dispatch(const Args& a, F&& launch) {
  if (a.state_bf16 && a.io_bf16) launch(K<__nv_bfloat16, __nv_bfloat16>::fn);
  else if (a.state_bf16) launch(K<__nv_bfloat16, float>::fn);
  else if (a.io_bf16) launch(K<float, __nv_bfloat16>::fn);
  else launch(K<float, float>::fn);
}
template <class ST, class IT> struct BaselineK { static constexpr auto fn = ssu_baseline_kernel<ST, IT>; };
template <int NL, int kMode>
struct FastAt {
  template <class ST, class IT> struct K { static constexpr auto fn = ssu_fast_mid_kernel<ST, IT, NL, kMode>; };
};
template <int NL>
struct FastAt<NL, -1> {
  template <class ST, class IT> struct K { static constexpr auto fn = ssu_fast_kernel<ST, IT, NL>; };
};
template <class ST, class IT> struct FloorK { static constexpr auto fn = ssu_floor_kernel<ST>; };

// Every arm moves the state in 16-byte chunks: a pool that is not 16-byte aligned is refused
// here, before any launch, instead of faulting on the device. Side inputs take any alignment.
void require_aligned_state(const Args& a) {
  if (reinterpret_cast<uintptr_t>(a.state) % 16 != 0)
    throw InputError("ssu: the state pool must be 16-byte aligned (the kernels move state in 16-byte chunks); got " +
                     std::to_string(reinterpret_cast<uintptr_t>(a.state) % 16) + " bytes past a 16-byte boundary");
}

}  // namespace

void launch_baseline(const Args& a, cudaStream_t s) {
  require_aligned_state(a);
  dim3 grid(kP / kBaseRows, a.batch, a.nheads);
  dispatch<BaselineK>(a, [&](auto fn) { fn<<<grid, kBaseThreads, 0, s>>>(a); });
}
template <class G>
dim3 grid_of(const Args& a) {
  return dim3(static_cast<unsigned>(a.batch) * a.nheads * G::kCtasPerHead);
}
// Heuristic (a pure function of the problem), measured on the H200 (kernels/ssu/NOTES.md):
// with at most ~3 (batch, head) tiles per SM the update is latency bound, so lanes carry 2
// chunks and 4x more CTAs issue at once; up to 8192 tiles lanes carry 4 chunks with the side
// inputs issued first (FP32 b16-b64 gained 4-7 %); beyond that lanes carry 8, state copy first.
int fast_chunks_per_lane(const Args& a) {
  const long long tiles = static_cast<long long>(a.batch) * a.nheads;
  return tiles <= 384 ? 2 : tiles <= 8192 ? 4 : 8;
}

// One launch of the fast kernel family: NL chunks per lane, mode bits kMid on the NL = 4 path
// and kOther on the NL = 2 and 8 paths (-1: the v3 kernel).
template <int kMid, int kOther, int kMidNL = 4, int kLarge = kOther>
void launch_fast_modes(const Args& a, cudaStream_t s) {
  require_aligned_state(a);
  auto go = [&](auto geo, auto kernels) {
    using G = decltype(geo);
    dispatch<decltype(kernels)::template K>(a, [&](auto fn) { fn<<<grid_of<G>(a), G::kThreads, 0, s>>>(a); });
  };
  const int nl = fast_chunks_per_lane(a);
  if (a.state_bf16) {
    if (nl == 2) go(Geo<__nv_bfloat16, 2>{}, FastAt<2, kOther>{});
    else if (nl == 4) go(Geo<__nv_bfloat16, kMidNL>{}, FastAt<kMidNL, kMid>{});
    else go(Geo<__nv_bfloat16, 8>{}, FastAt<8, kLarge>{});
  } else {
    if (nl == 2) go(Geo<float, 2>{}, FastAt<2, kOther>{});
    else if (nl == 4) go(Geo<float, kMidNL>{}, FastAt<kMidNL, kMid>{});
    else go(Geo<float, 8>{}, FastAt<8, kLarge>{});
  }
}

void launch_fast(const Args& a, cudaStream_t s) { launch_fast_modes<kEarly, -1>(a, s); }
// Next-candidate and diagnostic arms (tuning only).
void launch_v8(const Args& a, cudaStream_t s) { launch_fast_modes<kEarly | kVecBC, -1>(a, s); }
void launch_v9(const Args& a, cudaStream_t s) { launch_fast_modes<kEarly | kVecBC | kTight, -1>(a, s); }
// B/C staging needs 16-byte aligned B/C rows; otherwise v8's path (its vector loads check their own alignment).
bool bc_rows_aligned(const Args& a) {
  const long long esz = a.io_bf16 ? 2 : 4;
  return reinterpret_cast<uintptr_t>(a.B) % 16 == 0 && reinterpret_cast<uintptr_t>(a.C) % 16 == 0 &&
         (a.bc_stride * esz) % 16 == 0;
}
void launch_v11(const Args& a, cudaStream_t s) {
  if (bc_rows_aligned(a)) launch_fast_modes<kEarly | kStageBC, -1>(a, s);
  else launch_v8(a, s);
}
void launch_v12(const Args& a, cudaStream_t s) {
  if (bc_rows_aligned(a)) launch_fast_modes<kEarly | kStageBC | kOcc, -1>(a, s);
  else launch_v8(a, s);
}
void launch_v13(const Args& a, cudaStream_t s) {
  if (bc_rows_aligned(a)) launch_fast_modes<kEarly | kStageBC | kTight, -1>(a, s);
  else launch_v8(a, s);
}
void launch_v14(const Args& a, cudaStream_t s) {
  if (bc_rows_aligned(a)) launch_fast_modes<kEarly | kStageBC, -1, 8>(a, s);
  else launch_v8(a, s);
}
// The lean kernel's side views: B/C rows 16-byte aligned, x/z rows aligned to one warp's slice.
bool lean_views_aligned(const Args& a, int xz_align) {
  const long long esz = a.io_bf16 ? 2 : 4;
  auto al = [&](const void* p, int n) { return reinterpret_cast<uintptr_t>(p) % n == 0; };
  return bc_rows_aligned(a) && al(a.x, xz_align) && (!a.has_z || al(a.z, xz_align)) && (a.x_stride * esz) % xz_align == 0;
}
// The lean kernel at NL chunks per lane on each range of fast_chunks_per_lane (small <= 384
// tiles, mid, large > 8192); 0 keeps v8's kernel on that range.
template <int kSmallNL, int kMidNL, int kLargeNL, bool kPf = false>
void launch_lean(const Args& a, cudaStream_t s) {
  const int band = fast_chunks_per_lane(a);
  const int nl = band == 2 ? kSmallNL : band == 4 ? kMidNL : kLargeNL;
  auto go = [&](auto st, auto it, auto nlc) {
    using ST = decltype(st);
    using IT = decltype(it);
    constexpr int NL = decltype(nlc)::value;
    if (!lean_views_aligned(a, Lean<ST, IT, NL>::kXZCopy)) return false;
    ssu_fast_lean_kernel<ST, IT, NL, kPf><<<grid_of<Geo<ST, NL>>(a), 64, 0, s>>>(a);
    return true;
  };
  auto go_nl = [&](auto nlc) {
    if (a.state_bf16 && a.io_bf16) return go(__nv_bfloat16{}, __nv_bfloat16{}, nlc);
    if (a.state_bf16) return go(__nv_bfloat16{}, float{}, nlc);
    if (a.io_bf16) return go(float{}, __nv_bfloat16{}, nlc);
    return go(float{}, float{}, nlc);
  };
  require_aligned_state(a);
  bool done = false;
  if (nl == 2) done = go_nl(std::integral_constant<int, 2>{});
  else if (nl == 4) done = go_nl(std::integral_constant<int, 4>{});
  else if (nl == 8) done = go_nl(std::integral_constant<int, 8>{});
  if (!done) launch_v8(a, s);
}
void launch_v15(const Args& a, cudaStream_t s) { launch_lean<0, 4, 0>(a, s); }
void launch_v16(const Args& a, cudaStream_t s) { launch_lean<0, 8, 0>(a, s); }
void launch_v17(const Args& a, cudaStream_t s) { launch_lean<2, 4, 8>(a, s); }
void launch_v18(const Args& a, cudaStream_t s) { launch_lean<2, 8, 8>(a, s); }
void launch_v19(const Args& a, cudaStream_t s) { launch_fast_modes<kEarly | kVecBC | kPrefetch, -1>(a, s); }
void launch_v20(const Args& a, cudaStream_t s) { launch_lean<0, 4, 0, true>(a, s); }
void launch_v21(const Args& a, cudaStream_t s) { launch_fast_modes<kEarly | kVecBC | kPrefetch, -1, 4, kVecBC | kPrefetch>(a, s); }
void launch_d_noside(const Args& a, cudaStream_t s) { launch_fast_modes<kNoSide, kNoSide>(a, s); }
void launch_d_noreduce(const Args& a, cudaStream_t s) { launch_fast_modes<kEarly | kNoReduce, kNoReduce>(a, s); }
void launch_d_copy(const Args& a, cudaStream_t s) { launch_fast_modes<kCopy, kCopy>(a, s); }
void launch_floor(const Args& a, cudaStream_t s) {
  require_aligned_state(a);
  if (a.state_bf16) dispatch<FloorK>(a, [&](auto fn) { fn<<<grid_of<Geo<__nv_bfloat16, 8>>(a), 64, 0, s>>>(a); });
  else dispatch<FloorK>(a, [&](auto fn) { fn<<<grid_of<Geo<float, 8>>(a), 64, 0, s>>>(a); });
}

// Persistent launches. resident_ctas: CTAs of `threads` threads and `smem` bytes that fit on
// the device at once (the kernel's dynamic shared memory limit raised first), asked once per
// kernel. balanced_grid: as many of them as fit, trimmed so every warp of a round-robin walk
// over `items` gets the same number of items (no tail of half-busy warps).
template <auto kKernel>
int resident_ctas(int threads, int smem) {
  static const int n = [&] {
    KGATE_CUDA(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0, dev = 0, sms = 0;
    KGATE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kKernel, threads, smem));
    KGATE_CUDA(cudaGetDevice(&dev));
    KGATE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return std::max(1, sms * per_sm);
  }();
  return n;
}
inline int balanced_grid(int items, int max_ctas, int warps_per_cta) {
  const int max_warps = max_ctas * warps_per_cta;
  const int per_warp = std::max(1, (items + max_warps - 1) / max_warps);
  const int warps = (items + per_warp - 1) / per_warp;
  return std::max(1, (warps + warps_per_cta - 1) / warps_per_cta);
}

template <class ST>
void launch_floor_stream_t(const Args& a, cudaStream_t s) {
  constexpr int smem = stream_smem_bytes<ST>();
  const int tiles = a.batch * a.nheads * (kP / Geo<ST, 8>::RPW);
  const int grid = balanced_grid(tiles, resident_ctas<ssu_floor_stream_kernel<ST>>(32 * kStreamWarps, smem), kStreamWarps);
  ssu_floor_stream_kernel<ST><<<grid, 32 * kStreamWarps, smem, s>>>(a, tiles, grid * kStreamWarps);
}
void launch_floor_stream(const Args& a, cudaStream_t s) {
  require_aligned_state(a);
  if (a.state_bf16) launch_floor_stream_t<__nv_bfloat16>(a, s);
  else launch_floor_stream_t<float>(a, s);
}

// v10: the persistent all-async kernel for more than 384 tiles, when its conditions hold
// (16-byte aligned side views, batch <= kV10MaxBatch); the v7 path otherwise.
template <class ST, class IT>
bool launch_v10_t(const Args& a, cudaStream_t s) {
  using K = V10<ST, IT>;
  auto al = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const long long esz = sizeof(IT);
  if (a.batch > kV10MaxBatch || !al(a.x) || !al(a.B) || !al(a.C) || (a.has_z && !al(a.z)) ||
      (a.x_stride * esz) % 16 != 0 || (a.bc_stride * esz) % 16 != 0)
    return false;
  const int tiles = a.batch * a.nheads * K::PPH;
  const int grid = balanced_grid(tiles, resident_ctas<ssu_v10_kernel<ST, IT>>(32 * kV10Warps, K::kMaxSmem), kV10Warps);
  const int smem = kV10Warps * K::kWarpBytes + (a.batch * 4 + 15) / 16 * 16;
  ssu_v10_kernel<ST, IT><<<grid, 32 * kV10Warps, smem, s>>>(a, tiles, grid * kV10Warps);
  return true;
}
void launch_v10(const Args& a, cudaStream_t s) {
  require_aligned_state(a);
  bool done = false;
  if (fast_chunks_per_lane(a) != 2) {
    if (a.state_bf16 && a.io_bf16) done = launch_v10_t<__nv_bfloat16, __nv_bfloat16>(a, s);
    else if (a.state_bf16) done = launch_v10_t<__nv_bfloat16, float>(a, s);
    else if (a.io_bf16) done = launch_v10_t<float, __nv_bfloat16>(a, s);
    else done = launch_v10_t<float, float>(a, s);
  }
  if (!done) launch_fast(a, s);
}

}  // namespace kgate::ssu::gpu
