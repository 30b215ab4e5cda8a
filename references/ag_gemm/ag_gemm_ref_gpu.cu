#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "harness/gpu/check.hpp"
#include "harness/gpu/device.hpp"
#include "references/ag_gemm/ag_gemm_ref_gpu.hpp"

namespace kgate::ag_gemm {
namespace {

constexpr int kThreads = 256;
unsigned blocks_for(int64_t n) {
  return static_cast<unsigned>(std::min<int64_t>((n + kThreads - 1) / kThreads, 1 << 20));
}

// Grid-stride fills: element i of rank r's shard (rank >= 0) or of B (rank < 0).
template <class T>
__global__ void fill_kernel(uint64_t seed, int64_t rank, int64_t n, T* out) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const uint64_t e = static_cast<uint64_t>(i);
    const float v = rank >= 0 ? a_value(seed, rank, e) : b_value(seed, e);
    if constexpr (std::is_same_v<T, __nv_bfloat16>)
      out[i] = __float2bfloat16_rn(v);
    else if constexpr (std::is_same_v<T, __half>)
      out[i] = __float2half_rn(v);
    else
      out[i] = v;
  }
}

__global__ void to_double_kernel(const float* c, int64_t n, bool fp16, double* ref) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    ref[i] = static_cast<double>(fp16 ? __half2float(__float2half_rn(c[i])) : round_bf16(c[i]));
}

__global__ void fp16_to_f32_kernel(const uint16_t* in, int64_t n, float* out) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x) {
    const uint16_t b = in[i];
    out[i] = b == kPoisonBf16 ? __uint_as_float(kPoisonF32) : __half2float(__ushort_as_half(b));
  }
}

__global__ void poison16_kernel(uint16_t* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; i += int64_t{gridDim.x} * blockDim.x)
    out[i] = kPoisonBf16;
}

template <class T>
void fill(uint64_t seed, int64_t rank, int64_t elems, void* out, cudaStream_t s) {
  fill_kernel<<<blocks_for(elems), kThreads, 0, s>>>(seed, rank, elems, static_cast<T*>(out));
  KGATE_CUDA_LAUNCHED();
}

}  // namespace

void fill_a_device(uint64_t seed, int64_t rank, int64_t elems, bool fp16, void* out, cudaStream_t s) {
  fp16 ? fill<__half>(seed, rank, elems, out, s) : fill<__nv_bfloat16>(seed, rank, elems, out, s);
}
void fill_b_device(uint64_t seed, int64_t elems, bool fp16, void* out, cudaStream_t s) {
  fp16 ? fill<__half>(seed, -1, elems, out, s) : fill<__nv_bfloat16>(seed, -1, elems, out, s);
}
void poison16_device(void* out, int64_t n, cudaStream_t s) {
  poison16_kernel<<<blocks_for(n), kThreads, 0, s>>>(static_cast<uint16_t*>(out), n);
  KGATE_CUDA_LAUNCHED();
}
void fp16_to_f32_device(const void* in, int64_t n, float* out, cudaStream_t s) {
  fp16_to_f32_kernel<<<blocks_for(n), kThreads, 0, s>>>(static_cast<const uint16_t*>(in), n, out);
  KGATE_CUDA_LAUNCHED();
}

void reference_device(const Params& p, uint64_t seed, double* ref, cudaStream_t s) {
  const int64_t shard = p.m * p.k, rows = p.rows();
  gpu::DeviceBuffer A(static_cast<size_t>(rows * p.k) * 4), B(static_cast<size_t>(p.k * p.n) * 4),
      C(static_cast<size_t>(rows * p.n) * 4);
  for (int64_t r = 0; r < p.world_size; ++r)
    fill_kernel<<<blocks_for(shard), kThreads, 0, s>>>(seed, r, shard, A.as<float>() + r * shard);
  fill_kernel<<<blocks_for(p.k * p.n), kThreads, 0, s>>>(seed, -1, p.k * p.n, B.as<float>());
  KGATE_CUDA_LAUNCHED();
  cublasHandle_t h = nullptr;
  KGATE_CUBLAS(cublasCreate(&h));
  try {
    KGATE_CUBLAS(cublasSetStream(h, s));
    KGATE_CUBLAS(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
    const float one = 1.f, zero = 0.f;
    // Row-major C = A B as column-major C^T = B^T A^T.
    KGATE_CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(p.n), static_cast<int>(rows),
                             static_cast<int>(p.k), &one, B.as<float>(), static_cast<int>(p.n), A.as<float>(),
                             static_cast<int>(p.k), &zero, C.as<float>(), static_cast<int>(p.n)));
    to_double_kernel<<<blocks_for(rows * p.n), kThreads, 0, s>>>(C.as<float>(), rows * p.n, p.fp16, ref);
    KGATE_CUDA_LAUNCHED();
    KGATE_CUDA(cudaStreamSynchronize(s));  // the buffers are freed on return
  } catch (...) {
    cublasDestroy(h);
    throw;
  }
  KGATE_CUBLAS(cublasDestroy(h));
}

}  // namespace kgate::ag_gemm
