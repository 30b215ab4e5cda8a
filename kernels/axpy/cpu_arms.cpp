// axpy on the CPU backend: the row context (inputs and oracle on the host) and two arms, a plain
// loop and Eigen's vectorized update.
#include <Eigen/Dense>

#include "harness/core/numeric.hpp"
#include "harness/run/arm_context.hpp"
#include "kernels/axpy/family.hpp"

namespace kgate::axpy {

void cpu_scalar(const axpy_args& a) {
  for (long long i = 0; i < a.n; ++i) a.y[i] = a.a * a.x[i] + a.y[i];
}

void cpu_eigen(const axpy_args& a) {
  Eigen::Map<const Eigen::VectorXf> x(a.x, a.n);
  Eigen::Map<Eigen::VectorXf> y(a.y, a.n);
  y += a.a * x;
}

const CpuArm<CpuFn> kCpuScalarArm{&cpu_scalar};
const CpuArm<CpuFn> kCpuEigenArm{&cpu_eigen};

namespace {

// A check updates a fresh copy of the input y; timed calls update the context's own y, call
// after call (y grows by a * x per call: fp32 stays finite for any run's call count).
class CpuContext final : public CpuArmContext<CpuArm<CpuFn>> {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(row.params, seed)), ref_(reference(hp_)), tol_(row.tolerance), y_(hp_.y) {}

  Correctness check(const Implementation& impl) override {
    std::vector<float> y = hp_.y;
    arm(impl).call(args(y));
    return check_y(y, ref_, tol_);
  }

 protected:
  void call(const CpuArm<CpuFn>& a) override { a.call(args(y_)); }

 private:
  axpy_args args(std::vector<float>& y) const { return {hp_.n, hp_.a, hp_.x.data(), y.data()}; }

  HostProblem hp_;
  std::vector<double> ref_;
  Tolerance tol_;
  std::vector<float> y_;
};

}  // namespace

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed) {
  return std::make_unique<CpuContext>(row, seed);
}

}  // namespace kgate::axpy
