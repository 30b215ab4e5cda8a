#pragma once
#include "harness/core/registry.hpp"
#include "harness/run/campaign.hpp"
#include "references/ag_gemm/ag_gemm.hpp"

namespace kgate::ag_gemm {

using CpuFn = void (*)(const HostProblem& in, std::vector<float>& C);
void register_family(Registry& r);
void register_cpu_impls(Registry& r);

}  // namespace kgate::ag_gemm
