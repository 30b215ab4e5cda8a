// CPU implementations of ag_gemm: gather then a cache-blocked i-k-j loop, and gather then
// an Eigen GEMM (the CPU analogue of all-gather + cuBLAS).
#include <Eigen/Dense>

#include "harness/core/numeric.hpp"
#include "harness/run/arm_context.hpp"
#include "kernels/ag_gemm/family.hpp"

namespace kgate::ag_gemm {
namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace

void cpu_blocked(const HostProblem& hp, std::vector<float>& C) {
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
  for (auto& v : C) v = round_out(v, p.fp16);
}

void cpu_eigen_gemm(const HostProblem& hp, std::vector<float>& C) {
  const Params& p = hp.p;
  RowMat A(p.rows(), p.k);
  for (int64_t r = 0; r < p.world_size; ++r)
    A.middleRows(r * p.m, p.m) = Eigen::Map<const RowMat>(hp.A[r].data(), p.m, p.k);
  Eigen::Map<const RowMat> B(hp.B.data(), p.k, p.n);
  Eigen::Map<RowMat> Cm(C.data(), p.rows(), p.n);
  Cm.noalias() = A * B;
  for (auto& v : C) v = round_out(v, p.fp16);
}

namespace {

class CpuContext final : public CpuArmContext<CpuArm<CpuFn>> {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(Params::from_json(row.params), seed)), ref_(reference(hp_)), tol_(row.tolerance) {
    C_.resize(ref_.size());
  }
  Correctness check(const Implementation& impl) override {
    std::vector<float> C(C_.size(), poison_f32());
    arm(impl).call(hp_, C);
    std::vector<double> o(C.begin(), C.end());
    std::vector<bool> unw(C.size());
    for (size_t i = 0; i < C.size(); ++i) unw[i] = is_poison_f32(C[i]);
    int64_t N = hp_.p.n;
    return compare_outputs(o, ref_, unw, tol_,
                           [N](size_t i) { return "C[" + std::to_string(i / N) + "," + std::to_string(i % N) + "]"; });
  }

 protected:
  void call(const CpuArm<CpuFn>& a) override { a.call(hp_, C_); }

 private:
  HostProblem hp_;
  std::vector<double> ref_;
  Tolerance tol_;
  std::vector<float> C_;
};

}  // namespace

const CpuArm<CpuFn> kCpuBlockedArm{&cpu_blocked};
const CpuArm<CpuFn> kCpuEigenArm{&cpu_eigen_gemm};

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed) {
  return std::make_unique<CpuContext>(row, seed);
}

}  // namespace kgate::ag_gemm
