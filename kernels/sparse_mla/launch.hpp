#pragma once
// The sparse_mla GPU launchers (launch.cu) as the family's arms: each a launch over
// sparse_mla_args, the config it will choose, and the kernels its launch issues.
#include <cuda_runtime.h>

#include "harness/gpu/arm.hpp"
#include "kernels/sparse_mla/abi.h"
#include "kernels/sparse_mla/config.hpp"

namespace kgate::sparse_mla::gpu {

using Arm = kgate::GpuArm<sparse_mla_args, json>;

// Shape and pointer checks every launcher makes first (InputError naming `arm`).
void validate(const sparse_mla_args& a, const char* arm);

void launch_floor(const sparse_mla_args& a, cudaStream_t s);
void launch_baseline(const sparse_mla_args& a, cudaStream_t s);
void launch_fast(const sparse_mla_args& a, cudaStream_t s);
extern const Arm kFloorArm, kBaselineArm, kFastArm;

}  // namespace kgate::sparse_mla::gpu
