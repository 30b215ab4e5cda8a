#pragma once
// The ssu arms in two tables (harness/core/arm.hpp): family.cpp registers both, export.cpp puts
// the GPU arms in an export library (`kgate export --family ssu`), so both routes name the same
// launcher, kernels and description. Prose only: no arm's unit includes this file.
#include "harness/core/arm.hpp"
#include "kernels/ssu/family.hpp"
#ifdef KGATE_HAVE_CUDA
#include "kernels/ssu/launch.hpp"
#endif

namespace kgate::ssu {

inline const ArmEntry<CpuArm<CpuFn>> kCpuArms[] = {
    {"ssu.cpu_scalar", "baseline", "plain fp32 loops over (batch, head, d, n)", &kCpuScalarArm},
    {"ssu.cpu_eigen", "candidate", "Eigen rank-1 update + GEMV per (batch, head), single-threaded", &kCpuEigenArm},
};

#ifdef KGATE_HAVE_CUDA
inline const ArmEntry<gpu::Arm> kGpuArms[] = {
    {"ssu.baseline", "baseline",
     "Triton selective_state_update structure, BLOCK_SIZE_M=8, 4 warps, grid (dim tiles, batch, heads)",
     &gpu::kBaselineArm},
    {"ssu.fast", "candidate",
     "BF16 state up to 768 tiles: state warps that only move the state plus one side-input warp per CTA; else row "
     "owner: 2-warp CTAs over row slices of a (batch, head), state through cp.async, side rows prefetched to L2 "
     "(BF16 state)",
     &gpu::kFastArm, nullptr, kSm90aOnly},
    {"ssu.floor", "floor", "copies the state bytes the update reads and writes, in place (bandwidth anchor)",
     &gpu::kFloorArm},
    {"ssu.floor_copy", "floor",
     "the same state bytes read from the pool and written to a second pool (out-of-place copy: the absolute anchor)",
     &gpu::kFloorCopyArm},
    {"ssu.floor_stream", "floor",
     "the same bytes by persistent warps, round-robin 4 KiB tiles, cp.async pipeline (second anchor)",
     &gpu::kFloorStreamArm},
};
#endif

}  // namespace kgate::ssu
