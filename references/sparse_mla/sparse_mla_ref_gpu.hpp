#pragma once
// The GPU reference for sparse_mla: gather the active valid rows of every
// token into fp32, S = Q K^T and O = P V by fp32 cuBLAS GEMMs (pedantic math: no TF32), the
// softmax, lse and sink in fp64 by a kernel of its own. Shares no code with any arm. Checked
// against the CPU reference on small rows (GpuRef.SparseMlaMatchesTheCpuReference).
#include <cuda_runtime.h>

#include <cstdint>

#include "references/sparse_mla/sparse_mla.hpp"

namespace kgate::sparse_mla {

struct DeviceInputs {
  const void* q;                 // BF16 [q_rows, H, 512]
  const void *swa, *compressed;  // the tables' bytes (FP8: MODEL1 page blocks)
  const int32_t* indices;        // [T, W] logical columns
  const int32_t* lens;           // [T] raw
  const float* sink;             // [H] or null
};

// ref_out [T, H, 512] (BF16-rounded, as reference() rounds) and ref_lse [T, H], doubles.
void reference_device(const HostProblem& hp, const DeviceInputs& in, double* ref_out, double* ref_lse, cudaStream_t s);

}  // namespace kgate::sparse_mla
