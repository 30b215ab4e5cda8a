#pragma once
// calib device code: kernels whose true duration is known, to prove the timer, and one that
// faults on purpose, to prove that a failing row is recorded and the campaign goes on.
#include <cuda_runtime.h>

namespace kgate::calib {
namespace {

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread spins for `cycles` of SM clock. out[0] = cycles spun, out[1] = globaltimer at
// start, out[2] = at end (ns).
__global__ void calib_spin(long long cycles, unsigned long long* out) {
  unsigned long long g0 = globaltimer();
  long long t0 = clock64(), t1;
  do t1 = clock64();
  while (t1 - t0 < cycles);
  unsigned long long g1 = globaltimer();
  out[0] = static_cast<unsigned long long>(t1 - t0);
  out[1] = g0;
  out[2] = g1;
}

// The negative control: a kernel that traps, leaving the context unusable (a sticky error).
__global__ void calib_fault() { __trap(); }

}  // namespace
}  // namespace kgate::calib
