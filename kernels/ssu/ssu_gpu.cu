// ssu GPU arms:
//  - ssu.baseline: the structure of the widely used Triton selective_state_update kernel at its
//    upstream tuning for dstate 128 (BLOCK_SIZE_M = 8, num_warps = 4): a grid over
//    (dim tiles, batch, heads); each program loads an 8 x 128 state tile, updates it, reduces
//    over dstate. 16-byte state accesses (what Triton emits for this tile).
//  - ssu.floor: copies exactly the state bytes the update reads and writes (same slot table,
//    same tiles), 16-byte streaming loads/stores: the memory-bandwidth anchor.
//  - ssu.fast: one CTA per (batch, head) owns the whole 64 x 128 tile; every lane issues all of
//    its 16-byte state loads before any arithmetic (4 x 16 B bf16, 8 x 16 B fp32 in flight per
//    lane), side inputs (x, B, C, z, dt) are loaded meanwhile with scalar loads (any alignment),
//    B and C stay in registers, state is streamed with evict-first hints.
#include <cuda_bf16.h>

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
constexpr int kFastThreads = 256;  // 8 warps x 8 rows = one 64-row head per CTA

template <class ST, class IT>
__global__ void __launch_bounds__(kFastThreads) ssu_fast_kernel(Args a) {
  constexpr int V = Chunk<ST>::V;
  constexpr int CPR = kN / V;        // 16-byte chunks per row: 16 (bf16) or 32 (fp32)
  constexpr int RPL = 32 / CPR;      // rows one warp-wide load covers: 2 or 1
  constexpr int NL = 8 / RPL;        // loads per lane: 4 or 8
  const int h = blockIdx.x % a.nheads, b = blockIdx.x / a.nheads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int cc = lane % CPR, rsub = lane / CPR;
  const int slot = a.slots[b];
  const uint4* tile = reinterpret_cast<const uint4*>(static_cast<ST*>(a.state) +
                                                     ((static_cast<long long>(slot) * a.nheads + h) * kP + warp * 8) * kN);
  uint4 raw[NL];
  if (slot >= 0) {
#pragma unroll
    for (int i = 0; i < NL; ++i) raw[i] = __ldcs(tile + i * 32 + lane);
  }
  // Side inputs while the state is in flight.
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
  const long long xrow = static_cast<long long>(b) * a.x_stride + h * kP + warp * 8 + rsub;
  float x[NL], acc[NL];
#pragma unroll
  for (int i = 0; i < NL; ++i) x[i] = ld_io<IT>(a.x, xrow + i * RPL);
#pragma unroll
  for (int i = 0; i < NL; ++i) {
    float s[V];
    if (slot >= 0) Chunk<ST>::unpack(raw[i], s);
    else
#pragma unroll
      for (int j = 0; j < V; ++j) s[j] = 0.f;
    acc[i] = 0.f;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      s[j] = fmaf(s[j], dA, Bv[j] * x[i]);
      acc[i] = fmaf(s[j], Cv[j], acc[i]);
    }
    raw[i] = Chunk<ST>::pack(s);
  }
  if (slot >= 0) {
    uint4* w = const_cast<uint4*>(tile);
#pragma unroll
    for (int i = 0; i < NL; ++i) __stcs(w + i * 32 + lane, raw[i]);
  }
#pragma unroll
  for (int i = 0; i < NL; ++i)
#pragma unroll
    for (int o = CPR / 2; o > 0; o >>= 1) acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
  if (cc == 0) {
    const float Dh = load_w(a.D, h, a.weight_bf16);
    IT* out = static_cast<IT*>(a.out) + (static_cast<long long>(b) * a.nheads + h) * kP + warp * 8 + rsub;
#pragma unroll
    for (int i = 0; i < NL; ++i) {
      float o = acc[i] + Dh * x[i];
      if (a.has_z) o = silu_gate(o, ld_io<IT>(a.z, xrow + i * RPL));
      out[i * RPL] = from_f<IT>(o);
    }
  }
}

// ---------------------------------------------------------------- floor (state bytes in and out)
template <class ST>
__global__ void __launch_bounds__(kFastThreads) ssu_floor_kernel(Args a) {
  constexpr int NL = 8 * kN * sizeof(ST) / 16 / 32;
  const int h = blockIdx.x % a.nheads, b = blockIdx.x / a.nheads;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int slot = a.slots[b];
  if (slot < 0) return;
  uint4* tile = reinterpret_cast<uint4*>(static_cast<ST*>(a.state) +
                                         ((static_cast<long long>(slot) * a.nheads + h) * kP + warp * 8) * kN);
  uint4 raw[NL];
#pragma unroll
  for (int i = 0; i < NL; ++i) raw[i] = __ldcs(tile + i * 32 + lane);
#pragma unroll
  for (int i = 0; i < NL; ++i) __stcs(tile + i * 32 + lane, raw[i]);
}

template <template <class, class> class K, class F>
void dispatch(const Args& a, F&& launch) {
  if (a.state_bf16 && a.io_bf16) launch(K<__nv_bfloat16, __nv_bfloat16>::fn);
  else if (a.state_bf16) launch(K<__nv_bfloat16, float>::fn);
  else if (a.io_bf16) launch(K<float, __nv_bfloat16>::fn);
  else launch(K<float, float>::fn);
}
template <class ST, class IT> struct BaselineK { static constexpr auto fn = ssu_baseline_kernel<ST, IT>; };
template <class ST, class IT> struct FastK { static constexpr auto fn = ssu_fast_kernel<ST, IT>; };
template <class ST, class IT> struct FloorK { static constexpr auto fn = ssu_floor_kernel<ST>; };

}  // namespace

void launch_baseline(const Args& a, cudaStream_t s) {
  dim3 grid(kP / kBaseRows, a.batch, a.nheads);
  dispatch<BaselineK>(a, [&](auto fn) { fn<<<grid, kBaseThreads, 0, s>>>(a); });
}
void launch_fast(const Args& a, cudaStream_t s) {
  dispatch<FastK>(a, [&](auto fn) { fn<<<a.batch * a.nheads, kFastThreads, 0, s>>>(a); });
}
void launch_floor(const Args& a, cudaStream_t s) {
  dispatch<FloorK>(a, [&](auto fn) { fn<<<a.batch * a.nheads, kFastThreads, 0, s>>>(a); });
}

}  // namespace kgate::ssu::gpu
