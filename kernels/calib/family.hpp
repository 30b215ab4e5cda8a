#pragma once
// The calib family inside kgate: what family.cpp and the GPU context share.
#include <memory>

#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"

namespace kgate {
void register_family_calib(Registry& r);
}

#ifdef KGATE_HAVE_CUDA
namespace kgate::calib {
std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t seed, kgate::gpu::GpuBackend& be);
}
#endif
