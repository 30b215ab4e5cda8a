#pragma once
#include "harness/core/registry.hpp"
#include "harness/run/campaign.hpp"
#include "references/sparse_mla/sparse_mla.hpp"

namespace kgate::sparse_mla {

using CpuFn = void (*)(const HostProblem& in, std::vector<float>& out, std::vector<float>& lse);
void register_family(Registry& r);
void register_cpu_impls(Registry& r);
Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& out,
                          const std::vector<float>& lse, const Tolerance& tol);

}  // namespace kgate::sparse_mla
