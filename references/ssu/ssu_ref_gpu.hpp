#pragma once
// The GPU reference for ssu: the conventions of ssu.hpp computed in fp64 on the device, one
// thread per (batch row, head, head dim d), by code that shares nothing with any arm (its own
// loads, its own loop; only the CUDA math library). The row context uses it as the oracle on
// rows too large for the CPU reference to finish well under a second (gpu_context.cpp); the
// GPU test GpuRef.SsuMatchesTheCpuReference checks it against the CPU reference on small rows.
#include <cuda_runtime.h>

#include <cstdint>

#include "references/ssu/ssu.hpp"

namespace kgate::ssu {

// Device copies of one problem's inputs, in their declared dtypes.
struct DeviceInputs {
  const void* pool;  // the pool before the call
  const int32_t* slots;
  const void *x, *B, *C, *z;  // z null unless has_z
  const void *dt, *A, *D, *dt_bias;
};

// ref_state [batch, nheads, P, N] (a pad row's entries are left as they are), ref_out
// [batch, nheads, P], rounded to the state and io dtypes exactly as reference() rounds them.
void reference_device(const Params& p, const DeviceInputs& in, double* ref_state, double* ref_out, cudaStream_t s);

// The pool make_problem(p, seed) would fill on the host (pool_value), written on the device in
// the state dtype: large rows never build their pool on the host.
void fill_pool_device(const Params& p, uint64_t seed, void* pool, cudaStream_t s);

}  // namespace kgate::ssu
