#pragma once
// The axpy arms in one table (harness/core/arm.hpp), which family.cpp registers: CPU only (the
// family is the template a new family copies; a GPU family adds kGpuArms of its launch.hpp's
// arms, under KGATE_HAVE_CUDA). Prose only: no arm's unit includes this file.
#include "harness/core/arm.hpp"
#include "kernels/axpy/family.hpp"

namespace kgate::axpy {

inline const ArmEntry<CpuArm<CpuFn>> kCpuArms[] = {
    {"axpy.cpu_scalar", "baseline", "one fp32 multiply-add per element, in a plain loop", &kCpuScalarArm},
    {"axpy.cpu_eigen", "candidate", "Eigen's vectorized y += a * x over mapped buffers", &kCpuEigenArm},
};

}  // namespace kgate::axpy
