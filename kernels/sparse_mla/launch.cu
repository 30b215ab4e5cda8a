// sparse_mla GPU launchers: validation at the boundary and the dispatch of each arm's kernel.
// Kernels: floor.cuh. Conventions: references/sparse_mla/sparse_mla.hpp.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/gpu/check.hpp"
#include "kernels/sparse_mla/floor.cuh"
#include "kernels/sparse_mla/launch.hpp"

namespace kgate::sparse_mla::gpu {

void validate(const sparse_mla_args& a, const char* arm) {
  const std::string who = std::string("sparse_mla: ") + arm + ": ";
  if (std::string why = Problem::of(a).invalid(); !why.empty()) throw InputError(who + why);
  if (a.q_rows < a.tokens) throw InputError(who + "q_rows must be >= tokens");
  if (!a.q || !a.swa_kv || !a.swa_indices || !a.lens || !a.out || !a.lse)
    throw InputError(who + "q, swa_kv, swa_indices, lens, out and lse are required");
  if (a.topk > 0 && (!a.compressed_kv || !a.compressed_indices))
    throw InputError(who + "topk > 0 needs compressed_kv and compressed_indices");
  if (a.kv_fp8 && (a.page_block < 2 || a.page_block % 2))
    throw InputError(who + "page_block must be even and >= 2 (8-byte aligned MODEL1 blocks)");
  for (const void* p : std::initializer_list<const void*>{a.q, a.swa_kv, a.compressed_kv, a.out})
    if (reinterpret_cast<uintptr_t>(p) % 16) throw InputError(who + "q, KV tables and out must be 16-byte aligned");
}

void launch_floor(const sparse_mla_args& a, cudaStream_t s) {
  validate(a, "sparse_mla.floor");
  const dim3 grid((128 + a.topk + kFloorCols - 1) / kFloorCols, a.tokens);
  sparse_mla_floor_kernel<<<grid, kFloorThreads, 0, s>>>(a);
}

namespace {
json floor_config(const sparse_mla_args& a) {
  return {{"kernel", "sparse_mla_floor_kernel"},
          {"grid", {(128 + a.topk + kFloorCols - 1) / kFloorCols, a.tokens, 1}},
          {"threads", kFloorThreads},
          {"rule", "one CTA per (token, 64 index columns); reads the active valid rows, q; writes out and lse"},
          {"problem", Problem::of(a).to_json()}};
}
}  // namespace

const GpuArm kFloorArm{&launch_floor, &floor_config};

}  // namespace kgate::sparse_mla::gpu
