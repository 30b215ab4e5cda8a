#pragma once
// ssu.floor, ssu.floor_copy and ssu.floor_stream: the state bytes ssu.fast must move, moved with
// nothing else (the bandwidth anchors).
#include "kernels/ssu/fast.cuh"  // Geo, the geometry both floors share with ssu.fast

namespace kgate::ssu::gpu {
namespace {

// In place, ssu.fast's NL = 8 geometry, loads at L2 evict_last and plain stores: the fastest
// in-place form measured on the H200 (ld/st .cs 7 % slower at batch 256; kernels/ssu/NOTES.md).
template <class ST>
__global__ void __launch_bounds__(64, 16) ssu_floor_kernel(Args a) {
  using G = Geo<ST, 8>;
  const int part = blockIdx.x % G::kCtasPerHead, bh = blockIdx.x / G::kCtasPerHead;
  const int h = bh % a.nheads, b = bh / a.nheads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int slot = a.slots[b];
  if (slot < 0) return;
  uint4* tile = reinterpret_cast<uint4*>(
      static_cast<ST*>(a.state) +
      ((static_cast<long long>(slot) * a.nheads + h) * kP + part * G::kRowsPerCta + warp * G::RPW) * kN);
  const uint64_t last = l2_evict_last();
  uint4 raw[G::NL];
#pragma unroll
  for (int i = 0; i < G::NL; ++i) raw[i] = ld16_hint(tile + i * 32 + lane, last);
  // 0, unknown to the compiler: the in-place stores of the values just read stay. (A plain
  // load followed by the store of the same value to the same address is dead code to nvcc:
  // a floor written that way measured the read alone.)
  raw[0].x ^= static_cast<unsigned>(a.batch) >> 30;  // batch < 2^30: the family's schema caps it at 2^20
#pragma unroll
  for (int i = 0; i < G::NL; ++i) tile[i * 32 + lane] = raw[i];
}

// ssu.floor_copy: the same state bytes read from the pool and written to a second pool of the
// same layout: the out-of-place copy, the absolute anchor of the issue. One 16-byte chunk per
// thread over a grid that covers every owned tile (the form that reaches the copy rate).
template <class ST>
__global__ void __launch_bounds__(kCopyThreads) ssu_floor_copy_kernel(Args a, void* dst) {
  constexpr int kCpr = kN / Chunk<ST>::V, kRows = kCopyThreads / kCpr, kPerHead = kP / kRows;
  static_assert(kRows == kCopyThreads / (kN / chunk_values(sizeof(ST) == 2)),
                "config.hpp's floor_copy_config geometry");
  const int part = blockIdx.x % kPerHead, bh = blockIdx.x / kPerHead;
  const int h = bh % a.nheads, b = bh / a.nheads;
  const int slot = a.slots[b];
  if (slot < 0) return;
  const long long off = ((static_cast<long long>(slot) * a.nheads + h) * kP + part * kRows) * kN;
  reinterpret_cast<uint4*>(static_cast<ST*>(dst) + off)[threadIdx.x] =
      reinterpret_cast<const uint4*>(static_cast<const ST*>(a.state) + off)[threadIdx.x];
}

// ---------------------------------------------------------------- streaming floor (second anchor)
// The same state bytes moved by persistent warps: each walks 4 KiB warp tiles round-robin over
// the grid (so the whole GPU reads one window of the pool at a time) and keeps S - 1 tiles in
// flight through cp.async commit groups. Measured 2.4-5.4 % faster than ssu.floor at BF16
// batch >= 128 and up to 7 % slower at batch 1-4 (kernels/ssu/NOTES.md). Its warps, stages and
// shared memory: config.hpp.

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
                                    ((static_cast<long long>(slot) * a.nheads + h) * kP + part * RPW) * kN) +
           lane;
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

}  // namespace
}  // namespace kgate::ssu::gpu
