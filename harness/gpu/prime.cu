#include "harness/gpu/backend.hpp"

namespace kgate::gpu {

__global__ void kgate_prime_kernel(int* p) {
  if (p) *p = 1;
}

void launch_prime_kernel(cudaStream_t s) {
  kgate_prime_kernel<<<1, 32, 0, s>>>(nullptr);
  KGATE_CUDA_LAUNCHED();
}

}  // namespace kgate::gpu

namespace kgate::gpu {

// Test hook target: a kernel that traps, as a faulting candidate would (sticky context error).
__global__ void kgate_trap_kernel() { __trap(); }

void launch_trap_kernel(cudaStream_t s) {
  kgate_trap_kernel<<<1, 1, 0, s>>>();
  KGATE_CUDA_LAUNCHED();
}

}  // namespace kgate::gpu
