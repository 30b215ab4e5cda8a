// Does an L2::evict_last bulk prefetch survive a 2x-L2 cudaMemsetAsync flush (kgate's cold-L2 step)?
// Pointer chase over a region, one thread: cycles per load tell L2 hit from DRAM.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
__global__ void prefetch(const char* p, long long bytes, int last) {
  for (long long off = (long long)threadIdx.x * 16384; off < bytes; off += (long long)blockDim.x * 16384) {
    long long n = bytes - off < 16384 ? bytes - off : 16384;
    if (last) {
      uint64_t pol;
      asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
      asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" ::"l"(p + off), "r"((unsigned)n), "l"(pol) : "memory");
    } else {
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p + off), "r"((unsigned)n) : "memory");
    }
  }
}
__global__ void chase(const unsigned* next, int steps, unsigned long long* out) {
  unsigned i = 0;
  long long t0 = clock64();
  for (int s = 0; s < steps; ++s) i = __ldcg(next + i);
  long long t1 = clock64();
  out[0] = (t1 - t0) / steps;
  out[1] = i;
}
int main() {
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const long long R = 8 << 20;  // region bytes
  const int lines = R / 128;
  std::vector<unsigned> perm(lines), next(R / 4, 0);
  for (int k = 0; k < lines; ++k) perm[k] = k;
  std::shuffle(perm.begin(), perm.end(), std::mt19937(1));
  for (int k = 0; k < lines; ++k) next[perm[k] * 32] = perm[(k + 1) % lines] * 32;
  char *reg[4]; for (auto& r : reg) { CK(cudaMalloc(&r, R)); CK(cudaMemcpy(r, next.data(), R, cudaMemcpyHostToDevice)); }
  void* fl; const size_t fb = 2ull * l2; CK(cudaMalloc(&fl, fb));
  unsigned long long* out; CK(cudaMallocManaged(&out, 16));
  auto flush = [&] { cudaMemsetAsync(fl, 1, fb); };
  auto probe = [&](const char* what, char* r) {
    chase<<<1, 1>>>((const unsigned*)r, 20000, out); cudaDeviceSynchronize();
    printf("%-58s %4llu cycles/load\n", what, out[0]);
  };
  printf("L2 %d bytes, region %lld bytes, flush %zu bytes\n", l2, R, fb);
  for (int trial = 0; trial < 2; ++trial) {
    flush(); cudaDeviceSynchronize();
    prefetch<<<1, 128>>>(reg[0], R, 1); prefetch<<<1, 128>>>(reg[1], R, 0); cudaDeviceSynchronize();
    probe("evict_last prefetch, no flush (L2-hit reference)", reg[0]);
    probe("normal prefetch, no flush", reg[1]);
    flush(); cudaDeviceSynchronize();
    probe("cold region (never prefetched), after flush", reg[2]);
    prefetch<<<1, 128>>>(reg[0], R, 1); prefetch<<<1, 128>>>(reg[1], R, 0); cudaDeviceSynchronize();
    flush(); cudaDeviceSynchronize();
    probe("evict_last prefetch, then 2x-L2 memset flush", reg[0]);
    probe("normal prefetch, then 2x-L2 memset flush", reg[1]);
    prefetch<<<1, 128>>>(reg[3], R, 1); cudaDeviceSynchronize();
    CK(cudaCtxResetPersistingL2Cache()); flush(); cudaDeviceSynchronize();
    probe("evict_last prefetch, reset persisting, flush", reg[3]);
  }
  return 0;
}
