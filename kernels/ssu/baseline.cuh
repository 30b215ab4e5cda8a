#pragma once
// ssu.baseline: the structure of the widely used Triton selective_state_update kernel at its
// upstream tuning for dstate 128 (BLOCK_SIZE_M = 8, num_warps = 4): a grid over
// (dim tiles, batch, heads); each program loads an 8 x 128 state tile, updates it, reduces
// over dstate. 16-byte state accesses (what Triton emits for this tile).
#include "kernels/ssu/device.cuh"

namespace kgate::ssu::gpu {
namespace {

template <class ST, class IT>
__global__ void __launch_bounds__(kBaseThreads) ssu_baseline_kernel(Args a) {
  constexpr int V = Chunk<ST>::V;
  constexpr int TPR = kBaseThreads / kBaseRows;  // 16 threads per row
  constexpr int EPT = kN / TPR;                  // 8 elements per thread
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
    if (slot >= 0)
      Chunk<ST>::unpack(*reinterpret_cast<const uint4*>(tile + j), s + j);
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

}  // namespace
}  // namespace kgate::ssu::gpu
