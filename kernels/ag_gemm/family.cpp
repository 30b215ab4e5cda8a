// The ag_gemm family: schema, cross-field check and the contract of every arm (not a subject:
// the tolerance is the oracle's, references/ag_gemm/ag_gemm_ref.cpp).
// Conventions: references/ag_gemm/ag_gemm.hpp.
#include "kernels/ag_gemm/family.hpp"

#include "harness/core/artifacts.hpp"
#include "kernels/ag_gemm/arms.hpp"
#include "kernels/ag_gemm/config.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::ag_gemm {
namespace {

void add_family_arms(Registry& r) {
  // An arm's sources: the dependencies of the units that implement it, and the oracle's.
  add_arms(r, {"ag_gemm", "cpu", {"host"}, built_arm_sources("ag_gemm", "cpu", {"kernels/ag_gemm/cpu_arms.cpp"})},
           kCpuArms);
#ifdef KGATE_HAVE_CUDA
  add_arms(r,
           {"ag_gemm", "cuda", kgate::gpu::built_archs(),
            built_arm_sources("ag_gemm", "cuda", {"kernels/ag_gemm/launch.cpp", "kernels/ag_gemm/gpu_context.cpp"})},
           kGpuArms);
#endif
}

// The work model, per rank (every rank does the same; the campaign's time is one call of one
// rank's arm): its GEMM of the gathered A [w*m, k] by B [k, n].
//  flops: 2 * (w*m) * n * k (multiply-add = 2).
//  bytes: the gathered A read once (w*m*k BF16), B read once (k*n BF16), C written once
//    (w*m*n BF16). The all-gather's own traffic (sending A_r, receiving the other w - 1 shards
//    into the gathered buffer) is not counted.
Work work(const json& params) {
  const Params p = Params::from_json(params);
  const double rows = static_cast<double>(p.rows()), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  return Work{2 * (rows * k + k * n + rows * n), 2 * rows * n * k};
}

}  // namespace
}  // namespace kgate::ag_gemm

namespace kgate {

void register_family_ag_gemm(Registry& r) {
  using PS = ParamSpec;
  Family f;
  f.name = "ag_gemm";
  f.summary = "tensor-parallel all-gather + GEMM: C = allgather(A_r) x B, BF16, fp32 accumulate";
  f.params = {
      {"world_size", PS::Kind::Int, true, 1, 1024, {}, {}, "ranks (GPUs)"},
      {"m", PS::Kind::Int, true, 1, 1 << 20, {}, {}, "local M rows per rank"},
      {"n", PS::Kind::Int, true, 1, 1 << 20, {}, {}, "N (this rank's column shard)"},
      {"k", PS::Kind::Int, true, 1, 1 << 20, {}, {}, "K"},
      {"dtype", PS::Kind::String, false, 0, 0, {"bf16", "fp16"}, "bf16", "A, B and C element type (fp32 accumulation)"},
  };
  f.tolerance = &ag_gemm::tolerance;  // references/ag_gemm/ag_gemm_ref.cpp
  f.work = &ag_gemm::work;
  f.make_cpu_context = &ag_gemm::make_cpu_context;
#ifdef KGATE_HAVE_CUDA
  f.make_gpu_context = &ag_gemm::make_gpu_context;
#endif
  r.add_family(std::move(f));
  ag_gemm::add_family_arms(r);
}

}  // namespace kgate
