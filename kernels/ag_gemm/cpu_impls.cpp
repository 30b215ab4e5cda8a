// CPU implementations of ag_gemm: gather then a cache-blocked i-k-j loop, and gather then
// an Eigen GEMM (the CPU analogue of all-gather + cuBLAS).
#include <Eigen/Dense>

#include "harness/core/numeric.hpp"
#include "references/ag_gemm/family.hpp"

namespace kgate::ag_gemm {
namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void blocked(const HostProblem& hp, std::vector<float>& C) {
  const Params& p = hp.p;
  std::fill(C.begin(), C.end(), 0.f);
  constexpr int64_t kb = 64;
  for (int64_t r = 0; r < p.world_size; ++r)
    for (int64_t k0 = 0; k0 < p.k; k0 += kb)
      for (int64_t i = 0; i < p.m; ++i) {
        float* c = &C[(r * p.m + i) * p.n];
        for (int64_t kk = k0; kk < std::min(p.k, k0 + kb); ++kk) {
          float a = hp.A[r][i * p.k + kk];
          const float* b = &hp.B[kk * p.n];
          for (int64_t j = 0; j < p.n; ++j) c[j] += a * b[j];
        }
      }
  for (auto& v : C) v = round_bf16(v);
}

void eigen_gemm(const HostProblem& hp, std::vector<float>& C) {
  const Params& p = hp.p;
  RowMat A(p.rows(), p.k);
  for (int64_t r = 0; r < p.world_size; ++r)
    A.middleRows(r * p.m, p.m) = Eigen::Map<const RowMat>(hp.A[r].data(), p.m, p.k);
  Eigen::Map<const RowMat> B(hp.B.data(), p.k, p.n);
  Eigen::Map<RowMat> Cm(C.data(), p.rows(), p.n);
  Cm.noalias() = A * B;
  for (auto& v : C) v = round_bf16(v);
}

}  // namespace

void register_cpu_impls(Registry& r) {
  r.add({"ag_gemm.cpu_blocked", "ag_gemm", "cpu", "baseline", {"host"}, {}, {"kernels/ag_gemm/cpu_impls.cpp"},
         "gather, then a K-blocked i-k-j loop", nullptr, reinterpret_cast<void*>(&blocked)});
  r.add({"ag_gemm.cpu_eigen", "ag_gemm", "cpu", "candidate", {"host"}, {}, {"kernels/ag_gemm/cpu_impls.cpp"},
         "gather, then an Eigen GEMM", nullptr, reinterpret_cast<void*>(&eigen_gemm)});
}

}  // namespace kgate::ag_gemm
