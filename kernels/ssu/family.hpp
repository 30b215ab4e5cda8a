#pragma once
// The ssu family inside kgate: what family.cpp, the CPU arms and the GPU context share.
#include <functional>
#include <memory>
#include <vector>

#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "references/ssu/ssu.hpp"

namespace kgate {
void register_family_ssu(Registry& r);
}

namespace kgate::ssu {

// CPU arms: the pool is updated in place, out written whole (cpu_arms.cpp).
using CpuFn = void (*)(const HostProblem& in, std::vector<float>& state, std::vector<float>& out);
void cpu_scalar(const HostProblem& hp, std::vector<float>& state, std::vector<float>& out);
void cpu_eigen_threaded(const HostProblem& hp, std::vector<float>& state, std::vector<float>& out);

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed);
#ifdef KGATE_HAVE_CUDA
std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, void* gpu_backend);
#endif

// The check every ssu context applies to an arm's outputs, whatever its role: a floor arm
// (it moves the state bytes and computes nothing) must leave the pool bit-identical; every
// other arm is compared with the oracle. `ref` is called only when the oracle is needed.
Correctness check_arm(const Implementation& impl, const HostProblem& hp, const std::function<const Reference&()>& ref,
                      const std::vector<float>& state, const std::vector<float>& out, const Tolerance& tol);

}  // namespace kgate::ssu
