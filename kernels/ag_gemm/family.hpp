#pragma once
// The ag_gemm family inside kgate: what family.cpp and the CPU arms share.
#include <memory>
#include <vector>

#include "harness/core/arm.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "references/ag_gemm/ag_gemm.hpp"

namespace kgate {
void register_family_ag_gemm(Registry& r);
}

namespace kgate::ag_gemm {

// CPU arms (cpu_arms.cpp).
using CpuFn = void(const HostProblem& in, std::vector<float>& C);
void cpu_blocked(const HostProblem& hp, std::vector<float>& C);
void cpu_eigen_gemm(const HostProblem& hp, std::vector<float>& C);
extern const CpuArm<CpuFn> kCpuBlockedArm, kCpuEigenArm;

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed);
// With CUDA (gpu_context.cpp): `be` is the rank's backend.
std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be);

}  // namespace kgate::ag_gemm
