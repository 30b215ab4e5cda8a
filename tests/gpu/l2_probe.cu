// Device side of Gpu.FlushEvictsEvictLastLines: a one-thread pointer chase tells an L2 hit
// from a DRAM access by its cycles per load.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "harness/gpu/check.hpp"
#include "tests/gpu/l2_probe.hpp"

namespace kgate::test {
namespace {
__global__ void prefetch_evict_last(const char* p, long long bytes) {
  uint64_t pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  for (long long off = static_cast<long long>(threadIdx.x) * 16384; off < bytes;
       off += static_cast<long long>(blockDim.x) * 16384) {
    const long long n = bytes - off < 16384 ? bytes - off : 16384;
    asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" ::"l"(p + off),
                 "r"(static_cast<unsigned>(n)), "l"(pol)
                 : "memory");
  }
}
__global__ void chase(const unsigned* next, int steps, unsigned long long* out) {
  unsigned i = 0;
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) i = __ldcg(next + i);
  out[0] = static_cast<unsigned long long>((clock64() - t0) / steps);
  out[1] = i;
}
}  // namespace

L2Probe::L2Probe(long long bytes) : bytes_(bytes) {
  const int lines = static_cast<int>(bytes / 128);
  std::vector<unsigned> perm(lines), next(bytes / 4, 0);
  for (int k = 0; k < lines; ++k) perm[k] = k;
  std::shuffle(perm.begin(), perm.end(), std::mt19937(1));
  for (int k = 0; k < lines; ++k) next[perm[k] * 32] = perm[(k + 1) % lines] * 32;  // one word per 128-byte line
  KGATE_CUDA(cudaMalloc(&region_, bytes));
  KGATE_CUDA(cudaMemcpy(region_, next.data(), bytes, cudaMemcpyHostToDevice));
  KGATE_CUDA(cudaMalloc(&out_, 2 * sizeof(unsigned long long)));
}
L2Probe::~L2Probe() {
  cudaFree(region_);
  cudaFree(out_);
}
void L2Probe::prefetch_evict_last(cudaStream_t s) {
  kgate::test::prefetch_evict_last<<<1, 128, 0, s>>>(static_cast<const char*>(region_), bytes_);
  KGATE_CUDA(cudaStreamSynchronize(s));
}
double L2Probe::cycles_per_load(cudaStream_t s) {
  chase<<<1, 1, 0, s>>>(static_cast<const unsigned*>(region_), 20000, static_cast<unsigned long long*>(out_));
  unsigned long long r[2];
  KGATE_CUDA(cudaMemcpyAsync(r, out_, sizeof r, cudaMemcpyDeviceToHost, s));
  KGATE_CUDA(cudaStreamSynchronize(s));
  return static_cast<double>(r[0]);
}

}  // namespace kgate::test
