#pragma once
// The sparse_mla arms in two tables (harness/core/arm.hpp), which family.cpp registers. Prose
// only: no arm's unit includes this file.
#include "harness/core/arm.hpp"
#include "kernels/sparse_mla/family.hpp"
#ifdef KGATE_HAVE_CUDA
#include "kernels/sparse_mla/launch.hpp"
#endif

namespace kgate::sparse_mla {

inline const ArmEntry<CpuArm<CpuFn>> kCpuArms[] = {
    {"sparse_mla.cpu_scalar", "baseline", "per-(token, head) scalar softmax attention", &kCpuScalarArm},
    {"sparse_mla.cpu_eigen", "candidate", "gather once per token, Eigen matrix products over all heads", &kCpuEigenArm},
};

#ifdef KGATE_HAVE_CUDA
inline const ArmEntry<gpu::Arm> kGpuArms[] = {
    {"sparse_mla.baseline", "baseline",
     "split-KV: 64-column blocks gathered to shared memory (FP8 dequantized to BF16), mma.sync QK^T and PV, online "
     "softmax, combine kernel",
     &gpu::kBaselineArm},
    {"sparse_mla.fast", "candidate",
     "up to 64 heads per CTA share each gathered row; the split's indices in shared memory; KV blocks gathered "
     "by cp.async one block ahead (FP8 staged raw, dequantized in shared memory); > 32 heads on sm_90a: wgmma "
     "on 64-column blocks, warp-specialized (a producer warpgroup gathers and dequantizes, two consumer "
     "warpgroups multiply; persistent grid) from 160 FP8 or 64 BF16 block steps, two lockstep warpgroups "
     "below; otherwise mma.sync on 32-column blocks; one split writes out itself, more merge in a combine kernel",
     &gpu::kFastArm, nullptr, kSm90aOnly},
    {"sparse_mla.floor", "floor",
     "reads every active valid gathered row and q, writes out and lse, no math (memory floor)", &gpu::kFloorArm},
};
#endif

}  // namespace kgate::sparse_mla
