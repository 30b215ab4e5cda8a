#include "harness/core/numeric.hpp"
#include "references/ag_gemm/ag_gemm.hpp"

namespace kgate::ag_gemm {

Params Params::from_json(const json& j) {
  return Params{j.at("world_size"), j.at("m"), j.at("n"), j.at("k")};
}

HostProblem make_problem(const Params& p, uint64_t seed) {
  Rng rng(seed);
  HostProblem hp;
  hp.p = p;
  hp.A.resize(static_cast<size_t>(p.world_size));
  for (auto& a : hp.A) {
    a.resize(static_cast<size_t>(p.m * p.k));
    for (auto& v : a) v = round_bf16(rng.normal());
  }
  hp.B.resize(static_cast<size_t>(p.k * p.n));
  for (auto& v : hp.B) v = round_bf16(rng.normal() * 0.125f);
  return hp;
}

std::vector<double> reference(const HostProblem& hp) {
  const Params& p = hp.p;
  std::vector<double> C(static_cast<size_t>(p.rows() * p.n), 0.0);
  std::vector<double> acc(static_cast<size_t>(p.n));
  for (int64_t r = 0; r < p.world_size; ++r)
    for (int64_t i = 0; i < p.m; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t kk = 0; kk < p.k; ++kk) {
        double a = hp.A[r][i * p.k + kk];
        const float* b = &hp.B[kk * p.n];
        for (int64_t j = 0; j < p.n; ++j) acc[j] += a * b[j];
      }
      for (int64_t j = 0; j < p.n; ++j) C[(r * p.m + i) * p.n + j] = round_bf16(static_cast<float>(acc[j]));
    }
  return C;
}

}  // namespace kgate::ag_gemm
