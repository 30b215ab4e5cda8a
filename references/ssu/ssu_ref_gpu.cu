// ssu's GPU reference (ssu_ref_gpu.hpp): the CPU reference's arithmetic (ssu_ref.cpp), in fp64,
// in the same order: v = prev * dA + (dt * B[n]) * x[d]; acc += v * C[n]; o = acc + D x[d]; the
// gate o *= z / (1 + exp(-z)).
#include "references/ssu/ssu_ref_gpu.hpp"

#include <cuda_bf16.h>

#include "harness/gpu/check.hpp"

namespace kgate::ssu {
namespace {

struct RefShape {
  long long batch, nheads, ngroups, x_stride, bc_stride;
  bool state_bf16, io_bf16, weight_bf16, softplus, has_z;
};

__device__ double value(const void* p, long long i, bool bf16) {
  if (bf16)
    return static_cast<double>(__uint_as_float(static_cast<unsigned>(static_cast<const unsigned short*>(p)[i]) << 16));
  return static_cast<double>(static_cast<const float*>(p)[i]);
}
__device__ double rounded(double v, bool bf16) {
  const float f = static_cast<float>(v);
  return bf16 ? static_cast<double>(__bfloat162float(__float2bfloat16_rn(f))) : static_cast<double>(f);
}

__global__ void ssu_reference_kernel(RefShape sh, DeviceInputs in, double* ref_state, double* ref_out) {
  const long long row = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;  // (b, h, d)
  if (row >= sh.batch * sh.nheads * kP) return;
  const long long d = row % kP, h = row / kP % sh.nheads, b = row / (kP * sh.nheads);
  const long long g = h / (sh.nheads / sh.ngroups);
  const int slot = in.slots[b];
  double dt = value(in.dt, b * sh.nheads + h, sh.weight_bf16) + value(in.dt_bias, h, sh.weight_bf16);
  if (sh.softplus) dt = dt > 20 ? dt : log1p(exp(dt));
  const double dA = exp(value(in.A, h, sh.weight_bf16) * dt);
  const double xd = value(in.x, b * sh.x_stride + h * kP + d, sh.io_bf16);
  const long long src = ((static_cast<long long>(slot < 0 ? 0 : slot) * sh.nheads + h) * kP + d) * kN;
  double acc = 0;
  for (int n = 0; n < kN; ++n) {
    const double prev = slot < 0 ? 0.0 : value(in.pool, src + n, sh.state_bf16);
    const double bn = value(in.B, b * sh.bc_stride + g * kN + n, sh.io_bf16);
    const double v = prev * dA + dt * bn * xd;
    acc += v * value(in.C, b * sh.bc_stride + g * kN + n, sh.io_bf16);
    if (slot >= 0) ref_state[row * kN + n] = rounded(v, sh.state_bf16);
  }
  double o = acc + value(in.D, h, sh.weight_bf16) * xd;
  if (sh.has_z) {
    const double zz = value(in.z, b * sh.x_stride + h * kP + d, sh.io_bf16);
    o *= zz / (1 + exp(-zz));
  }
  ref_out[row] = sh.io_bf16 ? rounded(o, true) : o;
}

__global__ void fill_pool_kernel(uint64_t seed, long long n, bool bf16, void* pool) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float v = pool_value(seed, static_cast<uint64_t>(i), bf16);
    if (bf16)
      static_cast<unsigned short*>(pool)[i] = f32_to_bf16_bits(v);
    else
      static_cast<float*>(pool)[i] = v;
  }
}

}  // namespace

void fill_pool_device(const Params& p, uint64_t seed, void* pool, cudaStream_t s) {
  fill_pool_kernel<<<132 * 16, 256, 0, s>>>(seed, pool_values(p), p.state_bf16, pool);
  KGATE_CUDA(cudaGetLastError());
}

void reference_device(const Params& p, const DeviceInputs& in, double* ref_state, double* ref_out, cudaStream_t s) {
  const RefShape sh{p.batch,      p.nheads,  p.ngroups,     p.x_stride(), p.bc_stride(),
                    p.state_bf16, p.io_bf16, p.weight_bf16, p.softplus,   p.has_z};
  const long long rows = p.batch * p.nheads * kP;
  ssu_reference_kernel<<<static_cast<unsigned>((rows + 127) / 128), 128, 0, s>>>(sh, in, ref_state, ref_out);
  KGATE_CUDA(cudaGetLastError());
}

}  // namespace kgate::ssu
