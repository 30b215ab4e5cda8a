// The ag_gemm family: schema, cross-field check, tolerances and the contract of every arm.
// Conventions: references/ag_gemm/ag_gemm.hpp.
#include "kernels/ag_gemm/family.hpp"

namespace kgate::ag_gemm {
namespace {

// What an arm's digest covers: the oracle it is checked against, the contract, its own code.
std::vector<std::string> sources() {
  return {"references/ag_gemm/ag_gemm.hpp", "references/ag_gemm/ag_gemm_ref.cpp", "kernels/ag_gemm/abi.h",
          "kernels/ag_gemm/config.hpp", "kernels/ag_gemm/family.hpp", "kernels/ag_gemm/family.cpp", "kernels/ag_gemm/cpu_arms.cpp"};
}

void add_arms(Registry& r) {
  r.add({"ag_gemm.cpu_blocked", "ag_gemm", "cpu", "baseline", {"host"}, {}, sources(),
         "gather, then a K-blocked i-k-j loop", nullptr, reinterpret_cast<void*>(&cpu_blocked)});
  r.add({"ag_gemm.cpu_eigen", "ag_gemm", "cpu", "candidate", {"host"}, {}, sources(),
         "gather, then an Eigen GEMM", nullptr, reinterpret_cast<void*>(&cpu_eigen_gemm)});
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
  };
  f.tolerance = [](const json&) { return Tolerance{1e-2, 1e-2}; };
  f.work = &ag_gemm::work;
  f.make_cpu_context = &ag_gemm::make_cpu_context;
  r.add_family(std::move(f));
  ag_gemm::add_arms(r);
}

}  // namespace kgate
