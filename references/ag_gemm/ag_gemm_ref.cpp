#include "harness/core/numeric.hpp"
#include "references/ag_gemm/ag_gemm.hpp"

namespace kgate::ag_gemm {

Params Params::from_json(const json& j) {
  return Params{j.at("world_size"), j.at("m"), j.at("n"), j.at("k"), j.value("dtype", "bf16") == "fp16"};
}

float round_out(float v, bool fp16) { return fp16 ? static_cast<float>(static_cast<_Float16>(v)) : round_bf16(v); }

HostProblem make_problem(const Params& p, uint64_t seed) {
  HostProblem hp;
  hp.p = p;
  hp.A.resize(static_cast<size_t>(p.world_size));
  for (int64_t r = 0; r < p.world_size; ++r) {
    auto& a = hp.A[static_cast<size_t>(r)];
    a.resize(static_cast<size_t>(p.m * p.k));
    for (size_t i = 0; i < a.size(); ++i) a[i] = a_value(seed, r, i);
  }
  hp.B.resize(static_cast<size_t>(p.k * p.n));
  for (size_t i = 0; i < hp.B.size(); ++i) hp.B[i] = b_value(seed, i);
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
      for (int64_t j = 0; j < p.n; ++j) C[(r * p.m + i) * p.n + j] = round_out(static_cast<float>(acc[j]), p.fp16);
    }
  return C;
}

Tolerance tolerance(const json&) { return Tolerance{1e-2, 1e-2}; }

}  // namespace kgate::ag_gemm
