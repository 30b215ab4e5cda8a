// ssu GPU arms:
//  - ssu.baseline: the structure of the widely used Triton selective_state_update kernel at its
//    upstream tuning for dstate 128 (BLOCK_SIZE_M = 8, num_warps = 4): a grid over
//    (dim tiles, batch, heads); each program loads an 8 x 128 state tile, updates it, reduces
//    over dstate. 16-byte state accesses (what Triton emits for this tile).
//  - ssu.floor: copies exactly the state bytes the update reads and writes (same slot table,
//    same tiles, same geometry as fast), 16-byte streaming loads/stores: the bandwidth anchor.
//  - ssu.fast: row owner. A 2-warp CTA owns 2 * NL * 32 / (chunks per row) rows of one head;
//    every lane copies its NL 16-byte state chunks global -> shared with cp.async before any
//    arithmetic (NL = 2, 4 or 8 by problem size), B and C stay in registers, the updated state
//    is streamed back with evict-first stores. Side inputs take any alignment (vector B/C loads
//    when aligned). For BF16 state above 384 (batch, head) tiles, the first CTA of each batch
//    row bulk-prefetches the side rows (x, z, B, C, dt) of a later batch row into L2, so side
//    loads hit L2 instead of opening DRAM rows next to the state stream. See kernels/ssu/NOTES.md.
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
// batch row b + ahead (one bulk prefetch per input, normal priority), ahead being about 24 MB
// of state traffic; the CTAs of batch row 0 cover rows 0 .. ahead - 1. By the time a CTA runs,
// its side loads hit L2. Not evict_last: such lines outlive the kernel and crowd the L2 of
// whatever runs next (and outlive a plain memset flush; see harness/gpu/device.hpp).
__device__ __forceinline__ void bulk_prefetch_l2(const void* p, long long bytes) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{15};
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes + 15) & ~uintptr_t{15};
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;\n" ::"l"(lo), "r"(static_cast<unsigned>(hi - lo)) : "memory");
}
// Tuning (branch only): kPf = 1: warp 0 asks L2 for each 128-byte line (prefetch.global.L2);
// kPf = 2: warp 0 reads every 32-byte sector (ld.global.cg, results discarded): not a hint.
__device__ __forceinline__ void lines_l2(const void* p, long long bytes, int how) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~uintptr_t{127}, hi = reinterpret_cast<uintptr_t>(p) + bytes;
  const int lane = threadIdx.x & 31;
  if (how == 1) {
    for (uintptr_t q = lo + lane * 128; q < hi; q += 32 * 128) asm volatile("prefetch.global.L2 [%0];\n" ::"l"(q));
  } else {
    unsigned sink = 0;
    for (uintptr_t q = lo + lane * 32; q < hi; q += 32 * 32) {
      unsigned r0, r1, r2, r3;
      asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "l"(q));
      sink ^= r0 ^ r1 ^ r2 ^ r3;
    }
    // Keeps the loads: never true for real data (bytes is never negative).
    if (sink == 0x9e3779b9u && bytes < 0) *reinterpret_cast<unsigned*>(lo) = sink;
  }
}
template <class ST, class IT, int kPf = 0>
__device__ __forceinline__ void prefetch_side_rows(const Args& a, int b, int h, int part) {
  if (part != 0 || threadIdx.x >= (kPf == 0 ? 1 : 32)) return;
  // 8, 24 and 48 MB measured the same (tuning run 10); 24 keeps the rows clear of both ends.
  const long long row_state = static_cast<long long>(a.nheads) * kP * kN * sizeof(ST) * 2;
  const int ahead = static_cast<int>(min(64LL, max(2LL, (24LL << 20) / row_state)));
  auto row = [&](int bb) {
    if (bb >= a.batch) return;
    auto pf = [&](const void* p, long long bytes) {
      if constexpr (kPf == 0) bulk_prefetch_l2(p, bytes);
      else lines_l2(p, bytes, kPf);
    };
    const long long xs = static_cast<long long>(a.nheads) * kP * sizeof(IT);
    pf(static_cast<const IT*>(a.x) + bb * a.x_stride, xs);
    if (a.has_z) pf(static_cast<const IT*>(a.z) + bb * a.x_stride, xs);
    const long long bcs = static_cast<long long>(a.ngroups) * kN * sizeof(IT);
    pf(static_cast<const IT*>(a.B) + bb * a.bc_stride, bcs);
    pf(static_cast<const IT*>(a.C) + bb * a.bc_stride, bcs);
    const int wsz = a.weight_bf16 ? 2 : 4;
    pf(static_cast<const char*>(a.dt) + static_cast<long long>(bb) * a.nheads * wsz, a.nheads * wsz);
  };
  if (b == 0)
    for (int bb = h; bb < ahead; bb += a.nheads) row(bb);
  else if (h == 0)
    row(b + ahead);
}

// The kernel of ssu.fast's mid range (and, for BF16 state, its large range). Mode bits:
//   kEarly: the side inputs (z included) are issued before the state copy, so their latency
//           overlaps the slot load's and z is in registers before the reduction; without it
//           they follow the copy (the v3 order) and z is read at the end.
//   kVecBC: B and C with one vector load per lane slice when the view is aligned.
//   kPrefetch: side rows prefetched to L2 ahead of their CTAs (prefetch_side_rows).
//   kAllLoads: the state copy first, then every side load before any arithmetic on them (v7's
//           NL = 2 kernel): no load waits behind dt's softplus. Without kEarly only.
enum : int { kEarly = 1, kVecBC = 2, kPrefetch = 4, kAllLoads = 8 };
// Diagnostic bits (tuning branch only; wrong outputs on purpose, kEarly form only): the named
// side inputs are replaced by constants (no loads). kDWave1: all side inputs, but only in CTAs
// below a.diag_live_from (the first resident wave).
enum : int { kDNoBC = 16, kDNoX = 32, kDNoZ = 64, kDNoW = 128, kDWave1 = 256 };
// Tuning bits (tuning branch only): kOcc18 / kOcc20: launch bounds for 18 / 20 BF16 CTAs per SM
// (56 / 48 registers) instead of 16 (64); kZLate: with kEarly, z is read at the end (v3's way)
// instead of held in registers from the start.
enum : int { kOcc18 = 512, kOcc20 = 1024, kZLate = 2048, kVecXZ = 4096, kPfLines = 8192, kPfLoads = 16384 };
// kTmaIn: the CTA's state slice (contiguous rows) comes in as one bulk copy (cp.async.bulk,
// completion on an mbarrier) instead of per-lane cp.async; kTmaOut: the updated slice is written
// back to shared memory and leaves as one bulk store. kFastSilu: the z gate with __fdividef.
enum : int { kTmaIn = 32768, kTmaOut = 65536, kFastSilu = 131072 };
__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ bool mbar_try_wait(unsigned bar, unsigned parity) {
  unsigned ok;
  asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok != 0;
}
// kVecXZ (BF16 state: a warp's rows are 2 * NL consecutive x / z elements): every lane reads
// the warp's whole x (and z) slice with 16-byte loads (one broadcast request per warp instead of
// NL scalar ones) and keeps its rows; scalar loads when the slice is not 16-byte aligned.
template <class IT, int NL, bool kVec>
__device__ __forceinline__ void load_rows(const void* base, long long first, int rsub, float* v) {
  const IT* p = static_cast<const IT*>(base) + first;
  if (kVec && (reinterpret_cast<uintptr_t>(p) & 15) == 0) {
    constexpr int W = 2 * NL * static_cast<int>(sizeof(IT)) / 16;
    uint32_t w[4 * W];
#pragma unroll
    for (int q = 0; q < W; ++q) {
      const uint4 r = reinterpret_cast<const uint4*>(p)[q];
      w[4 * q] = r.x, w[4 * q + 1] = r.y, w[4 * q + 2] = r.z, w[4 * q + 3] = r.w;
    }
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      if constexpr (sizeof(IT) == 2) v[i] = __uint_as_float(rsub ? (w[i] & 0xffff0000u) : (w[i] << 16));
      else v[i] = __uint_as_float(rsub ? w[2 * i + 1] : w[2 * i]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < NL; ++i) v[i] = ld_io<IT>(base, first + rsub + 2 * i);
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
__global__ void __launch_bounds__(64, sizeof(ST) == 4 ? (NL == 8 ? 20 : 24) : (kMode & kOcc18) ? 18 : (kMode & kOcc20) ? 20 : 16)
    ssu_fast_mid_kernel(Args a) {
  using G = Geo<ST, NL>;
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
  constexpr bool tma_in = (kMode & kTmaIn) != 0, tma_out = (kMode & kTmaOut) != 0;
  static_assert(!tma_out || tma_in, "kTmaOut needs kTmaIn's layout");
  // cp.async layout: chunk i of thread t at stage[i * kThreads + t]; bulk layout: the slice as in
  // global memory, so warp w's chunk i of lane l at stage[(w * NL + i) * 32 + l].
  constexpr int kStride = tma_in ? 32 : G::kThreads;
  uint4* mine = tma_in ? stage + warp * NL * 32 + lane : stage + threadIdx.x;
  __shared__ alignas(8) unsigned long long bar;
  if constexpr (tma_in) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_u32(&bar)) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
  }
  if constexpr ((kMode & kPrefetch) != 0)
    prefetch_side_rows<ST, IT, (kMode & kPfLines) ? 1 : (kMode & kPfLoads) ? 2 : 0>(a, b, h, part);
  float dt, dA, Dh, Bv[V], Cv[V], x[NL], zv[NL];
  auto bc_index = [&] { return static_cast<long long>(b) * a.bc_stride + (h / (a.nheads / a.ngroups)) * kN + cc * V; };
  auto x_index = [&] { return static_cast<long long>(b) * a.x_stride + h * kP + row0 + rsub; };
  constexpr unsigned kSliceBytes = G::kRowsPerCta * kN * sizeof(ST);
  const uint4* slice = tile - warp * NL * 32;  // the CTA's rows: warp 0's tile
  auto copy_state = [&] {
    if constexpr (tma_in) {
      if (slot >= 0 && threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(&bar)), "r"(kSliceBytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                     ::"r"(smem_u32(stage)), "l"(slice), "r"(kSliceBytes), "r"(smem_u32(&bar)) : "memory");
      }
    } else if (slot >= 0) {
#pragma unroll
      for (int i = 0; i < NL; ++i) cp_async16(mine + i * G::kThreads, tile + i * 32 + lane);
    }
  };
  constexpr bool all_loads = kMode & kAllLoads;
  static_assert(!(early && all_loads), "kAllLoads is a form of the copy-first order");
  if constexpr (!early && !all_loads) {
    // v3 order: state copy, then the side inputs while it streams in.
    copy_state();
    dt = dt_eff(a, b, h);
    dA = __expf(load_w(a.A, h, a.weight_bf16) * dt);
    load_bc<IT, V>(a, bc_index(), dt, Bv, Cv, kMode & kVecBC);
    const long long xrow = x_index();
    if constexpr ((kMode & kVecXZ) != 0 && RPL == 2) load_rows<IT, NL, true>(a.x, xrow - rsub, rsub, x);
    else
#pragma unroll
      for (int i = 0; i < NL; ++i) x[i] = ld_io<IT>(a.x, xrow + i * RPL);
    Dh = load_w(a.D, h, a.weight_bf16);
  } else {
    if constexpr (all_loads) copy_state();
    const bool live = (kMode & kDWave1) == 0 || static_cast<int>(blockIdx.x) >= a.diag_live_from;
    const bool noW = (kMode & kDNoW) != 0 || !live, noBC = (kMode & kDNoBC) != 0 || !live;
    const bool noX = (kMode & kDNoX) != 0 || !live, noZ = (kMode & kDNoZ) != 0 || !live;
    float dt_raw = 0.1f, dt_bias = 0.f, A = -1.f;
    Dh = 1.f;
    if (!noW) {
      dt_raw = load_w(a.dt, bh, a.weight_bf16);
      dt_bias = load_w(a.dt_bias, h, a.weight_bf16);
      A = load_w(a.A, h, a.weight_bf16);
      Dh = load_w(a.D, h, a.weight_bf16);
    }
    if (!noBC) load_bc<IT, V>(a, bc_index(), 1.f, Bv, Cv, kMode & kVecBC);
    else
#pragma unroll
      for (int j = 0; j < V; ++j) Bv[j] = Cv[j] = 1e-3f;
    const long long xrow = x_index();
    if constexpr ((kMode & kVecXZ) != 0 && RPL == 2) {
      load_rows<IT, NL, true>(a.x, xrow - rsub, rsub, x);
      if (early && (kMode & kZLate) == 0 && a.has_z) load_rows<IT, NL, true>(a.z, xrow - rsub, rsub, zv);
    } else
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      x[i] = noX ? 0.5f : ld_io<IT>(a.x, xrow + i * RPL);
      zv[i] = early && (kMode & kZLate) == 0 && a.has_z && cc == 0 && !noZ ? ld_io<IT>(a.z, xrow + i * RPL) : 0.5f;
    }
    if constexpr (early) copy_state();
    dt = dt_from(a, dt_raw, dt_bias);
    dA = __expf(A * dt);
#pragma unroll
    for (int j = 0; j < V; ++j) Bv[j] *= dt;
  }
  if constexpr (tma_in) {
    if (slot >= 0)
      while (!mbar_try_wait(smem_u32(&bar), 0)) {
      }
  } else {
    cp_async_wait_all();
  }
  float acc[NL];
#pragma unroll
  for (int i = 0; i < NL; ++i) {
    float s[V];
    if (slot >= 0) Chunk<ST>::unpack(mine[i * kStride], s);
    else
#pragma unroll
      for (int j = 0; j < V; ++j) s[j] = 0.f;
    acc[i] = 0.f;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      s[j] = fmaf(s[j], dA, Bv[j] * x[i]);
      acc[i] = fmaf(s[j], Cv[j], acc[i]);
    }
    if constexpr (tma_out) mine[i * kStride] = Chunk<ST>::pack(s);
    else if (slot >= 0) __stcs(tile + i * 32 + lane, Chunk<ST>::pack(s));
  }
  if constexpr (tma_out) {
    // Generic-proxy writes made visible to the bulk (async-proxy) store, then one thread sends
    // the slice and waits until it has been read out of shared memory before the CTA exits.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (slot >= 0 && threadIdx.x == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
                   ::"l"(slice), "r"(smem_u32(stage)), "r"(kSliceBytes) : "memory");
      asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
    }
  }
  // Row sums over the CPR lanes of each row; independent across i, so the shuffles overlap.
#pragma unroll
  for (int o = CPR / 2; o > 0; o >>= 1)
#pragma unroll
    for (int i = 0; i < NL; ++i) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if constexpr (tma_out)
    if (slot >= 0 && threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
  if (cc == 0) {
    IT* out = static_cast<IT*>(a.out) + static_cast<long long>(bh) * kP + row0 + rsub;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      float o = acc[i] + Dh * x[i];
      if (a.has_z) {
        const float zz = early && (kMode & kZLate) == 0 ? zv[i] : ld_io<IT>(a.z, x_index() + i * RPL);
        o = (kMode & kFastSilu) ? o * __fdividef(zz, 1.f + __expf(-zz)) : silu_gate(o, zz);
      }
      out[i * RPL] = from_f<IT>(o);
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

// Heuristic (a pure function of the problem), measured on the H200 (kernels/ssu/NOTES.md):
// with at most ~3 (batch, head) tiles per SM the update is latency bound, so lanes carry 2
// chunks and 4x more CTAs issue at once; up to 8192 tiles lanes carry 4 chunks with the side
// inputs issued first (FP32 b16-b64 gained 4-7 %); beyond that lanes carry 8, state copy first.
int fast_chunks_per_lane(const Args& a) {
  const long long tiles = static_cast<long long>(a.batch) * a.nheads;
  return tiles <= 384 ? 2 : tiles <= 8192 ? 4 : 8;
}

// One launch of the fast kernel family for state type ST: NL chunks per lane by problem size,
// with mode bits kSmall / kMid / kLarge on the NL = 2 / 4 / 8 paths (-1: the v3 kernel).
// kSmallWaves: the NL = 2 mode when the grid is more than one resident wave (same as kSmall:
// no distinction).
template <class ST, int kSmall, int kMid, int kLarge, int kSmallWaves = kSmall>
void launch_fast_modes(const Args& a, cudaStream_t s) {
  require_aligned_state(a);
  auto go = [&](auto geo, auto kernels) {
    using G = decltype(geo);
    using Ks = decltype(kernels);
    if (a.io_bf16) Ks::template K<ST, __nv_bfloat16>::fn<<<grid_of<G>(a), G::kThreads, 0, s>>>(a);
    else Ks::template K<ST, float>::fn<<<grid_of<G>(a), G::kThreads, 0, s>>>(a);
  };
  const int nl = fast_chunks_per_lane(a);
  if (nl == 2 && kSmallWaves != kSmall &&
      static_cast<long long>(grid_of<Geo<ST, 2>>(a).x) >
          resident_ctas<FastAt<2, kSmall>::template K<ST, float>::fn>(Geo<ST, 2>::kThreads, 0))
    go(Geo<ST, 2>{}, FastAt<2, kSmallWaves>{});
  else if (nl == 2) go(Geo<ST, 2>{}, FastAt<2, kSmall>{});
  else if (nl == 4) go(Geo<ST, 4>{}, FastAt<4, kMid>{});
  else go(Geo<ST, 8>{}, FastAt<8, kLarge>{});
}

// v12. BF16 state: vector B/C and the side-row L2 prefetch on the mid and large ranges (early
// side inputs on the mid range, the v3 order on the large one). FP32 state keeps v7's mid and
// large kernels: its side inputs weigh half as much next to its state, and vector B/C with the
// prefetch did not help it (tuning run 7). Both: on the NL = 2 range
// the v3 kernel while the grid fits one resident wave (latency bound: the state copy goes out
// first), the all-loads-first form beyond it (measured: kernels/ssu/NOTES.md, tuning run 9).
void launch_fast(const Args& a, cudaStream_t s) {
  if (a.state_bf16) launch_fast_modes<__nv_bfloat16, -1, kEarly | kVecBC | kPrefetch, kVecBC | kPrefetch, kAllLoads>(a, s);
  else launch_fast_modes<float, -1, kEarly, -1, kAllLoads>(a, s);
}

// Tuning arms for the BF16 mid range (batch x heads in (384, 8192]), everything else as ssu.fast:
//  - t_mid_copyfirst: the v3 order (state copy first) with vector B/C and the prefetch at NL = 4.
//    With the side rows prefetched, their loads are L2 hits, so the early order's reason (overlap
//    their DRAM latency with the slot load's) is gone and the state requests could go out first.
//  - t_mid_nl8: the same at NL = 8 (twice the state bytes per CTA, half the CTAs).
void launch_t_mid_copyfirst(const Args& a, cudaStream_t s) {
  if (a.state_bf16) launch_fast_modes<__nv_bfloat16, -1, kVecBC | kPrefetch, kVecBC | kPrefetch, kAllLoads>(a, s);
  else launch_fast(a, s);
}
void launch_t_mid_nl8(const Args& a, cudaStream_t s) {
  if (!a.state_bf16 || fast_chunks_per_lane(a) != 4) return launch_fast(a, s);
  require_aligned_state(a);
  using G = Geo<__nv_bfloat16, 8>;
  if (a.io_bf16) ssu_fast_mid_kernel<__nv_bfloat16, __nv_bfloat16, 8, kVecBC | kPrefetch><<<grid_of<G>(a), G::kThreads, 0, s>>>(a);
  else ssu_fast_mid_kernel<__nv_bfloat16, float, 8, kVecBC | kPrefetch><<<grid_of<G>(a), G::kThreads, 0, s>>>(a);
}
// Diagnostics on the BF16 mid range (ssu.fast's kEarly | kVecBC | kPrefetch kernel with side
// inputs removed); everything else as ssu.fast.
template <int kDiag>
void launch_diag(const Args& a0, cudaStream_t s) {
  if (!a0.state_bf16 || fast_chunks_per_lane(a0) != 4) return launch_fast(a0, s);
  require_aligned_state(a0);
  using G = Geo<__nv_bfloat16, 4>;
  constexpr int kMode = kEarly | kVecBC | kPrefetch | kDiag;
  Args a = a0;
  if (a.io_bf16) {
    a.diag_live_from = resident_ctas<ssu_fast_mid_kernel<__nv_bfloat16, __nv_bfloat16, 4, kMode>>(64, 0);
    ssu_fast_mid_kernel<__nv_bfloat16, __nv_bfloat16, 4, kMode><<<grid_of<G>(a), G::kThreads, 0, s>>>(a);
  } else {
    a.diag_live_from = resident_ctas<ssu_fast_mid_kernel<__nv_bfloat16, float, 4, kMode>>(64, 0);
    ssu_fast_mid_kernel<__nv_bfloat16, float, 4, kMode><<<grid_of<G>(a), G::kThreads, 0, s>>>(a);
  }
}
void launch_t_vecxz(const Args& a, cudaStream_t s) {
  if (a.state_bf16) launch_fast_modes<__nv_bfloat16, -1, kEarly | kVecBC | kPrefetch | kVecXZ, kVecBC | kPrefetch | kVecXZ, kAllLoads>(a, s);
  else launch_fast(a, s);
}
void launch_t_vecxz_mid(const Args& a, cudaStream_t s) {
  if (a.state_bf16) launch_fast_modes<__nv_bfloat16, -1, kEarly | kVecBC | kPrefetch | kVecXZ, kVecBC | kPrefetch, kAllLoads>(a, s);
  else launch_fast(a, s);
}
void launch_t_pflines(const Args& a, cudaStream_t s) {
  if (a.state_bf16) launch_fast_modes<__nv_bfloat16, -1, kEarly | kVecBC | kPrefetch | kPfLines, kVecBC | kPrefetch | kPfLines, kAllLoads>(a, s);
  else launch_fast(a, s);
}
void launch_t_pfloads(const Args& a, cudaStream_t s) {
  if (a.state_bf16) launch_fast_modes<__nv_bfloat16, -1, kEarly | kVecBC | kPrefetch | kPfLoads, kVecBC | kPrefetch | kPfLoads, kAllLoads>(a, s);
  else launch_fast(a, s);
}
void launch_t_tmain(const Args& a, cudaStream_t s) { launch_diag<kTmaIn>(a, s); }
void launch_t_tma(const Args& a, cudaStream_t s) { launch_diag<kTmaIn | kTmaOut>(a, s); }
void launch_t_fastsilu(const Args& a, cudaStream_t s) { launch_diag<kFastSilu>(a, s); }
void launch_t_occ18(const Args& a, cudaStream_t s) { launch_diag<kOcc18>(a, s); }
void launch_t_occ20(const Args& a, cudaStream_t s) { launch_diag<kOcc20>(a, s); }
void launch_t_zlate(const Args& a, cudaStream_t s) { launch_diag<kZLate>(a, s); }
void launch_t_zlate18(const Args& a, cudaStream_t s) { launch_diag<kZLate | kOcc18>(a, s); }
void launch_d_nobc(const Args& a, cudaStream_t s) { launch_diag<kDNoBC>(a, s); }
void launch_d_nox(const Args& a, cudaStream_t s) { launch_diag<kDNoX>(a, s); }
void launch_d_noz(const Args& a, cudaStream_t s) { launch_diag<kDNoZ>(a, s); }
void launch_d_now(const Args& a, cudaStream_t s) { launch_diag<kDNoW>(a, s); }
void launch_d_noside(const Args& a, cudaStream_t s) { launch_diag<kDNoBC | kDNoX | kDNoZ | kDNoW>(a, s); }
void launch_d_wave1(const Args& a, cudaStream_t s) { launch_diag<kDWave1>(a, s); }
void launch_floor(const Args& a, cudaStream_t s) {
  require_aligned_state(a);
  if (a.state_bf16) dispatch<FloorK>(a, [&](auto fn) { fn<<<grid_of<Geo<__nv_bfloat16, 8>>(a), 64, 0, s>>>(a); });
  else dispatch<FloorK>(a, [&](auto fn) { fn<<<grid_of<Geo<float, 8>>(a), 64, 0, s>>>(a); });
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

}  // namespace kgate::ssu::gpu
