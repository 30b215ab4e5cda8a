#pragma once
// The axpy family inside kgate: what family.cpp and the CPU arms share.
#include <memory>

#include "harness/core/arm.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "kernels/axpy/abi.h"
#include "references/axpy/axpy.hpp"

namespace kgate {
void register_family_axpy(Registry& r);
}

namespace kgate::axpy {

// CPU arms (cpu_arms.cpp): one call over the family's C args, on host pointers.
using CpuFn = void(const axpy_args& a);
void cpu_scalar(const axpy_args& a);
void cpu_eigen(const axpy_args& a);
extern const CpuArm<CpuFn> kCpuScalarArm, kCpuEigenArm;

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed);

}  // namespace kgate::axpy
