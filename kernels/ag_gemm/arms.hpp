#pragma once
// The ag_gemm arms in two tables (harness/core/arm.hpp), which family.cpp registers. Prose only:
// no arm's unit includes this file.
#include "harness/core/arm.hpp"
#include "kernels/ag_gemm/config.hpp"
#include "kernels/ag_gemm/family.hpp"
#ifdef KGATE_HAVE_CUDA
#include "kernels/ag_gemm/launch.hpp"
#endif

namespace kgate::ag_gemm {

inline const ArmEntry<CpuArm<CpuFn>> kCpuArms[] = {
    {"ag_gemm.cpu_blocked", "baseline", "gather, then a K-blocked i-k-j loop", &kCpuBlockedArm},
    {"ag_gemm.cpu_eigen", "candidate", "gather, then an Eigen GEMM", &kCpuEigenArm},
};

#ifdef KGATE_HAVE_CUDA
inline const ArmEntry<gpu::Arm> kGpuArms[] = {
    {"ag_gemm.baseline", "baseline",
     "ncclAllGather of the shards into the full A (a simulated run: one copy-engine copy per shard), then one "
     "cuBLAS GEMM (BF16, fp32 accumulation)",
     &gpu::kBaselineArm},
    {"ag_gemm.overlap", "candidate",
     "own shard's GEMM first, straight from A_r; the peers' shards move on a second stream (copy engine from "
     "peer pointers, or NCCL send/recv steps), then GEMMs over groups of 1, 2, 4, ... arrived shards, each waiting "
     "on its last arrival event",
     &gpu::kOverlapArm},
    {"ag_gemm.floor", "floor", "one cuBLAS GEMM of the A already gathered, no communication (the compute floor)",
     &gpu::kFloorArm},
    {"ag_gemm.gather", "floor", "the overlap arm's shard moves alone, no GEMM (the copy the schedule must hide)",
     &gpu::kGatherArm, &gather_supports},  // gather_supports: config.hpp
};
#endif

}  // namespace kgate::ag_gemm
