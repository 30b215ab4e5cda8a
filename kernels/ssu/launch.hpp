#pragma once
// The ssu GPU launchers (launch.cu) as the family's arms see them: each arm is a launch and
// the config that launch will choose for a problem.
#include <cuda_runtime.h>

#include "kernels/ssu/abi.h"
#include "kernels/ssu/config.hpp"

namespace kgate::ssu::gpu {

using Args = ssu_args;

struct GpuArm {
  void (*launch)(const ssu_args& a, cudaStream_t s);
  LaunchConfig (*config)(const ssu_args& a);  // queries the device where the heuristic needs it
  // Out-of-place arms (ssu.floor_copy) write into a second pool of the state's size, which the
  // row context provides; their plain launch refuses (the ssu ABI carries one pool).
  void (*launch_to)(const ssu_args& a, void* dst, cudaStream_t s) = nullptr;
};

// What every launcher checks before it launches (shape, the 16-byte aligned pool, sm_90a):
// throws InputError naming `arm`. An export's supports() asks it up front.
void validate(const ssu_args& a, const char* arm);

void launch_baseline(const ssu_args& a, cudaStream_t s);
void launch_fast(const ssu_args& a, cudaStream_t s);
void launch_floor(const ssu_args& a, cudaStream_t s);
void launch_floor_stream(const ssu_args& a, cudaStream_t s);
void launch_floor_copy(const ssu_args& a, void* dst, cudaStream_t s);

extern const GpuArm kBaselineArm, kFastArm, kFloorArm, kFloorStreamArm, kFloorCopyArm;

}  // namespace kgate::ssu::gpu
