#pragma once
// The ssu GPU launchers (launch.cu) as the family's arms: each a launch over ssu_args, the
// config that launch will choose for a problem, and the kernel its launch issues.
#include <cuda_runtime.h>

#include "harness/gpu/arm.hpp"
#include "kernels/ssu/abi.h"
#include "kernels/ssu/config.hpp"

namespace kgate::ssu::gpu {

using Args = ssu_args;

// What the row context lends a launch besides the args: the second pool of the state's size an
// out-of-place arm (ssu.floor_copy) writes into. The ssu ABI carries one pool, so an export's
// launch passes none, and such an arm refuses.
struct Pools {
  void* second = nullptr;
};
struct ArmTraits {
  bool out_of_place = false;  // writes into Pools::second, not the pool in the args
};
using Arm = kgate::GpuArm<ssu_args, LaunchConfig, Pools, ArmTraits>;

// What every launcher checks before it launches (shape, the 16-byte aligned pool, sm_90a):
// throws InputError naming `arm`. An export's supports() asks it up front.
void validate(const ssu_args& a, const char* arm);

void launch_baseline(const ssu_args& a, const Pools& pools, cudaStream_t s);
void launch_fast(const ssu_args& a, const Pools& pools, cudaStream_t s);
void launch_floor(const ssu_args& a, const Pools& pools, cudaStream_t s);
void launch_floor_stream(const ssu_args& a, const Pools& pools, cudaStream_t s);
void launch_floor_copy(const ssu_args& a, const Pools& pools, cudaStream_t s);

extern const Arm kBaselineArm, kFastArm, kFloorArm, kFloorStreamArm, kFloorCopyArm;

}  // namespace kgate::ssu::gpu
