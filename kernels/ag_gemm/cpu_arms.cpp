// CPU implementations of ag_gemm: gather then a cache-blocked i-k-j loop, and gather then
// an Eigen GEMM (the CPU analogue of all-gather + cuBLAS).
#include <Eigen/Dense>

#include "harness/core/compare.hpp"
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

// One input set: every rank's A shard and the oracle; B (the weights) is set 0's, shared.
struct Set {
  std::vector<std::vector<float>> A;
  std::vector<double> ref;
};

class CpuContext final : public CpuArmContext<CpuArm<CpuFn>, Set> {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(Params::from_json(row.params), seed)), tol_(row.tolerance) {
    add_set({hp_.A, reference(hp_)});
    C_.resize(loaded().ref.size());
  }
  void prepare_verified(const Implementation&) override { std::fill(C_.begin(), C_.end(), poison_f32()); }
  Correctness verify(const Implementation&) override {
    // Compared in place: a verified timed call pays no copy of C.
    const std::vector<double>& ref = loaded().ref;
    const int64_t N = hp_.p.n;
    return compare_elements(
        C_.size(), [&](size_t i) { return static_cast<double>(C_[i]); }, [&](size_t i) { return ref[i]; },
        [&](size_t i) { return is_poison_f32(C_[i]); }, tol_,
        [N](size_t i) { return "C[" + std::to_string(i / N) + "," + std::to_string(i % N) + "]"; });
  }

 protected:
  void call(const CpuArm<CpuFn>& a) override { a.call(hp_, C_); }
  Set make_set(uint64_t seed) const override {
    HostProblem hp = make_problem(hp_.p, seed);
    hp.B = hp_.B;
    std::vector<double> ref = reference(hp);
    return {std::move(hp.A), std::move(ref)};
  }
  void load(const Set& set) override {
    if (set.A.size() != hp_.A.size()) throw std::logic_error("input set: another number of A shards");
    for (size_t r = 0; r < set.A.size(); ++r) copy_into(hp_.A[r], set.A[r]);
  }

 private:
  HostProblem hp_;  // the live inputs the arms read
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
