#pragma once
// The ssu GPU arms in one table: family.cpp registers them as bundled arms, export.cpp puts
// them in an export library (`kgate export --family ssu`), so both routes name the same
// launcher, kernel and description.
#include "kernels/ssu/launch.hpp"

namespace kgate::ssu::gpu {

struct ArmInfo {
  const char* name;
  const char* role;
  const char* kernel;  // the one kernel its launch issues
  const char* description;
  const GpuArm* arm;
};

inline const ArmInfo kGpuArms[] = {
    {"ssu.baseline", "baseline", "ssu_baseline_kernel",
     "Triton selective_state_update structure, BLOCK_SIZE_M=8, 4 warps, grid (dim tiles, batch, heads)", &kBaselineArm},
    // Its side-warp kernel, ssu_fast_kernel_side_warp, matches the declared name (a prefix).
    {"ssu.fast", "candidate", "ssu_fast_kernel",
     "BF16 state up to 768 tiles: state warps that only move the state plus one side-input warp per CTA; else row "
     "owner: 2-warp CTAs over row slices of a (batch, head), state through cp.async, side rows prefetched to L2 "
     "(BF16 state)",
     &kFastArm},
    {"ssu.floor", "floor", "ssu_floor_kernel",
     "copies the state bytes the update reads and writes, in place (bandwidth anchor)", &kFloorArm},
    {"ssu.floor_copy", "floor", "ssu_floor_copy_kernel",
     "the same state bytes read from the pool and written to a second pool (out-of-place copy: the absolute anchor)",
     &kFloorCopyArm},
    {"ssu.floor_stream", "floor", "ssu_floor_stream_kernel",
     "the same bytes by persistent warps, round-robin 4 KiB tiles, cp.async pipeline (second anchor)",
     &kFloorStreamArm},
};

}  // namespace kgate::ssu::gpu
