#pragma once
// The ssu family inside kgate: what family.cpp, the CPU arms and the GPU context share.
#include <functional>
#include <memory>
#include <vector>

#include "harness/core/arm.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "references/ssu/ssu.hpp"

namespace kgate {
void register_family_ssu(Registry& r);
}

namespace kgate::ssu {

// CPU arms: the pool is updated in place, out written whole (cpu_arms.cpp).
using CpuFn = void(const HostProblem& in, std::vector<float>& state, std::vector<float>& out);
void cpu_scalar(const HostProblem& hp, std::vector<float>& state, std::vector<float>& out);
void cpu_eigen_threaded(const HostProblem& hp, std::vector<float>& state, std::vector<float>& out);
extern const CpuArm<CpuFn> kCpuScalarArm, kCpuEigenArm;

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed);
#ifdef KGATE_HAVE_CUDA
std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be);
#endif
// check_arm, the check every context applies: references/ssu/ssu.hpp.

}  // namespace kgate::ssu
