#pragma once
// The tensor family: any operator, described by its case table (config.hpp), its arms export
// libraries of the generic C ABI (abi.h), its oracle one of those arms.
#include <memory>

#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"

namespace kgate {
void register_family_tensor(Registry& r);
}

namespace kgate::gpu {
class GpuBackend;
}

namespace kgate::tensor {
std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed);
std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, gpu::GpuBackend& be);
}  // namespace kgate::tensor
