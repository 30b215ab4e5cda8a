#pragma once
#include "harness/core/registry.hpp"
#include "harness/run/campaign.hpp"
#include "references/ssu/ssu.hpp"

namespace kgate::ssu {

// CPU arms: the pool is updated in place, out written whole.
using CpuFn = void (*)(const HostProblem& in, std::vector<float>& state, std::vector<float>& out);

void register_family(Registry& r);
void register_cpu_impls(Registry& r);
// Checks out (row tolerance) and the whole pool (state-dtype tolerance, unowned entries exact).
Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& state,
                          const std::vector<float>& out, const Tolerance& tol);

}  // namespace kgate::ssu
