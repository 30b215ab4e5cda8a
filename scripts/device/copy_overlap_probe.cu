// Probe: does a same-GPU device-to-device copy overlap a running cuBLAS GEMM? Times (CUDA events,
// best of 5) a BF16 GEMM M 8192 N 2048 K 8192 alone, a 128 MiB copy alone, and both on two
// streams, for: cudaMemcpyAsync; cudaMemcpyBatchAsync hinted PreferOverlapWithCompute; a copy
// kernel of B blocks; and with cublasSetSmCountTarget(132 - S). Build:
//   nvcc -O2 -arch=sm_90a -o copy_overlap_probe copy_overlap_probe.cu -lcublas
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <functional>
#include <string>

#define CK(x) do { auto e = (x); if (e != 0) { std::printf("%s:%d error %d\n", __FILE__, __LINE__, (int)e); std::exit(1); } } while (0)

__global__ void copy_kernel(const int4* __restrict__ s, int4* __restrict__ d, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) d[i] = s[i];
}

int main() {
  const int M = 8192, N = 2048, K = 8192;
  const size_t copy_bytes = size_t(128) << 20;
  void *A, *B, *C, *src, *dst;
  CK(cudaMalloc(&A, size_t(M) * K * 2)); CK(cudaMalloc(&B, size_t(K) * N * 2)); CK(cudaMalloc(&C, size_t(M) * N * 2));
  CK(cudaMalloc(&src, copy_bytes)); CK(cudaMalloc(&dst, copy_bytes));
  CK(cudaMemset(A, 0x3c, size_t(M) * K * 2)); CK(cudaMemset(B, 0x3c, size_t(K) * N * 2)); CK(cudaMemset(src, 1, copy_bytes));
  cudaStream_t s1, s2; CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking)); CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cublasHandle_t h; CK(cublasCreate(&h)); CK(cublasSetStream(h, s1));
  cudaEvent_t e0, e1, f; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&f));
  const float one = 1, zero = 0;
  auto gemm = [&] { CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16BF, N, A, CUDA_R_16BF, K, &zero, C, CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)); };
  auto memcpy_plain = [&](cudaStream_t s) { CK(cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice, s)); };
  auto memcpy_batch = [&](cudaStream_t s) {
    void* d = dst; const void* sp = src; size_t b = copy_bytes, idx = 0; cudaMemcpyAttributes at{};
    at.srcAccessOrder = cudaMemcpySrcAccessOrderStream; at.flags = cudaMemcpyFlagPreferOverlapWithCompute;
    CK(cudaMemcpyBatchAsync(&d, &sp, &b, 1, &at, &idx, 1, s));
  };
  auto kernel_copy = [&](int blocks) { return [&, blocks](cudaStream_t s) { copy_kernel<<<blocks, 512, 0, s>>>((const int4*)src, (int4*)dst, copy_bytes / 16); }; };
  auto time = [&](const std::function<void()>& body) {
    float best = 1e30f;
    for (int r = 0; r < 6; ++r) {
      CK(cudaDeviceSynchronize());
      CK(cudaEventRecord(e0, s1)); CK(cudaStreamWaitEvent(s2, e0, 0));
      body();
      CK(cudaEventRecord(f, s2)); CK(cudaStreamWaitEvent(s1, f, 0)); CK(cudaEventRecord(e1, s1));
      CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r > 0 && ms < best) best = ms;
    }
    return best * 1000;
  };
  struct Copy { const char* name; std::function<void(cudaStream_t)> fn; };
  Copy copies[] = {{"cudaMemcpyAsync", memcpy_plain}, {"BatchAsync+overlap", memcpy_batch},
                   {"kernel 16 blk", kernel_copy(16)}, {"kernel 32 blk", kernel_copy(32)}, {"kernel 132 blk", kernel_copy(132)}};
  for (int sms : {0, 8, 16, 32}) {
    CK(cublasSetSmCountTarget(h, sms ? 132 - sms : 0));
    const float g = time([&] { gemm(); });
    std::printf("sm target %s: gemm alone %.1f us\n", sms ? std::to_string(132 - sms).c_str() : "all", g);
    for (auto& c : copies) {
      const float a = time([&] { c.fn(s2); });
      const float both = time([&] { gemm(); c.fn(s2); });
      std::printf("  %-20s copy alone %7.1f us  both %7.1f us  hidden %5.2f\n", c.name, a, both, (g + a - both) / a);
    }
  }
  return 0;
}
