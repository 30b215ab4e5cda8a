#pragma once
// The sparse_mla GPU launchers (launch.cu) as the family's arms see them.
#include <cuda_runtime.h>

#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/config.hpp"

namespace kgate::sparse_mla::gpu {

struct GpuArm {
  void (*launch)(const sparse_mla_args& a, cudaStream_t s);
  json (*config)(const sparse_mla_args& a);
};

// Shape and pointer checks every launcher makes first (InputError naming `arm`).
void validate(const sparse_mla_args& a, const char* arm);

void launch_floor(const sparse_mla_args& a, cudaStream_t s);
void launch_baseline(const sparse_mla_args& a, cudaStream_t s);
void launch_fast(const sparse_mla_args& a, cudaStream_t s);
extern const GpuArm kFloorArm, kBaselineArm, kFastArm;

}  // namespace kgate::sparse_mla::gpu
