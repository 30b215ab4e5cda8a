// Does compute-sanitizer's racecheck order shared-memory accesses across named barriers the way
// sparse_mla_fast_ws_kernel uses them? A minimal kernel of three warpgroups (384 threads; the third
// only syncs the CTA, as the producer does) hands a 64-float array from warpgroup 0 to warpgroup 1
// once per step, like salpha:
//   warpgroup 0: [sync FREE (step > 0)] write a[] ; READY ; ...
//   warpgroup 1: sync READY ; read a[] ; FREE
// Mode 0: READY is an arrive on warpgroup 0's side (as shipped), FREE a sync on both sides.
// Mode 1: both barriers synced on both sides.
// Mode 2: mode 0 with warpgroup 1's FREE an arrive (the 482f33d form).
// Mode 3: no barriers at all (a real race: racecheck must report it, or the probe proves nothing).
// Mode 4: mode 1 with the third warpgroup alive, syncing its own 128-thread barrier 5 each step,
// and warpgroup 0 syncing its own 128-thread barrier 4 each step (as the kernel's producer and
// Q loads do). Mode 5: mode 4 without the third warpgroup's barrier (it exits at once).
// Mode 6: mode 5 with warpgroup 0's own sync an mbarrier (128 arrivals, a parity wait) instead of
// the named barrier 4. (A mode 7 with barrier 4 synced by both consumer warpgroups, as first
// written, deadlocked: warpgroup 0 waited at 4 while warpgroup 1 waited at 2; removed.)
// Every mode but 3 is race-free by the PTX rules (bar.arrive -> bar.sync orders the arriving
// thread's earlier accesses before the syncing thread's later ones). Build:
//   nvcc -arch=sm_90a -O2 -o named_barrier_racecheck named_barrier_racecheck.cu
// Run: compute-sanitizer --tool racecheck ./named_barrier_racecheck MODE
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

__device__ __forceinline__ void bar_sync(int id, int n) { asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(n) : "memory"); }

__device__ __forceinline__ unsigned smem_u32(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_sync(unsigned bar, int parity) {  // arrive, then wait for the phase
  [[maybe_unused]] unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];\n" : "=l"(state) : "r"(bar) : "memory");
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\nmbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n@!p bra WAIT_%=;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

__global__ void __launch_bounds__(384, 1) handoff(int mode, int steps, float* out) {
  __shared__ float a[64];
  __shared__ unsigned long long mb;
  const int tid = threadIdx.x, wg = tid >> 7, t = tid & 127;
  if (tid == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(smem_u32(&mb)), "r"(128) : "memory");
  __syncthreads();
  if (wg == 2) {  // the producer's place: not in the consumers' named barriers
    if (mode == 4)
      for (int s = 0; s < steps; ++s) bar_sync(5, 128);
    return;
  }
  float acc = 0.f;
  for (int s = 0; s < steps; ++s) {
    if (wg == 0) {
      if (mode == 4 || mode == 5) bar_sync(4, 128);
      if (mode == 6) mbar_sync(smem_u32(&mb), s & 1);
      if (s > 0 && mode != 3) bar_sync(2, 256);
      if ((t & 1) == 0) a[t >> 1] = static_cast<float>(s + t);
      if (mode == 1 || mode >= 4) bar_sync(1, 256);
      else if (mode != 3) bar_arrive(1, 256);
    } else {
      if (mode != 3) bar_sync(1, 256);
      acc += a[t >> 1];
      if (s + 1 < steps) {
        if (mode == 2) bar_arrive(2, 256);
        else if (mode != 3) bar_sync(2, 256);
      }
    }
  }
  if (wg == 1) out[t] = acc;
}

int main(int argc, char** argv) {
  const int mode = argc > 1 ? std::atoi(argv[1]) : 0;
  float* out = nullptr;
  cudaMalloc(&out, 128 * sizeof(float));
  handoff<<<1, 384>>>(mode, 8, out);
  const cudaError_t e = cudaDeviceSynchronize();
  float h[128];
  cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost);
  // Thread t of warpgroup 1 sums s + 2 (t / 2) over 8 steps: 28 + 16 (t / 2) when ordered.
  int wrong = 0;
  for (int t = 0; t < 128; ++t) wrong += h[t] != 28.f + 16.f * (t / 2);
  std::printf("mode %d: %s, %d of 128 sums differ from the ordered result\n", mode, cudaGetErrorString(e), wrong);
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}
