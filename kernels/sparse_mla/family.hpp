#pragma once
// The sparse_mla family inside kgate: what family.cpp and the CPU arms share.
#include <memory>
#include <vector>

#include "harness/core/arm.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "references/sparse_mla/sparse_mla.hpp"

namespace kgate {
void register_family_sparse_mla(Registry& r);
}

namespace kgate::sparse_mla {

// CPU arms (cpu_arms.cpp).
using CpuFn = void(const HostProblem& in, std::vector<float>& out, std::vector<float>& lse);
void cpu_scalar(const HostProblem& hp, std::vector<float>& out, std::vector<float>& lse);
void cpu_eigen_batched(const HostProblem& hp, std::vector<float>& out, std::vector<float>& lse);
extern const CpuArm<CpuFn> kCpuScalarArm, kCpuEigenArm;

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed);
// The GPU row context (gpu_context.cpp).
std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be);

}  // namespace kgate::sparse_mla
