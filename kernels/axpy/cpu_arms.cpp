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

// One input set: x, the input y and the oracle.
struct Set {
  std::vector<float> x, y;
  std::vector<double> ref;
};

// Timed calls update the context's own y, call after call (y grows by a * x per call: fp32 stays
// finite for any run's call count); a verified call (and a check) starts from the loaded set's y.
class CpuContext final : public CpuArmContext<CpuArm<CpuFn>, Set> {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : params_(row.params), hp_(make_problem(row.params, seed)), tol_(row.tolerance), y_(hp_.y) {
    add_set({hp_.x, hp_.y, reference(hp_)});
  }
  void prepare_verified(const Implementation&) override { copy_into(y_, loaded().y); }
  Correctness verify(const Implementation&) override { return check_y(y_, loaded().ref, tol_); }

 protected:
  void call(const CpuArm<CpuFn>& a) override { a.call({hp_.n, hp_.a, hp_.x.data(), y_.data()}); }
  Set make_set(uint64_t seed) const override {
    HostProblem hp = make_problem(params_, seed);
    std::vector<double> ref = reference(hp);
    return {std::move(hp.x), std::move(hp.y), std::move(ref)};
  }
  void load(const Set& set) override { copy_into(hp_.x, set.x); }

 private:
  json params_;
  HostProblem hp_;  // x: the live input the arms read
  Tolerance tol_;
  std::vector<float> y_;
};

}  // namespace

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed) {
  return std::make_unique<CpuContext>(row, seed);
}

}  // namespace kgate::axpy
