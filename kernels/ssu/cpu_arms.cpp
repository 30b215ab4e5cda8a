// ssu on the CPU backend: the row context (inputs + oracle on the host) and two arms, a plain
// fp32 loop and an Eigen version (vectorized rank-1 update and GEMV per (batch, head)).
#include <Eigen/Dense>
#include <cmath>

#include "harness/core/numeric.hpp"
#include "harness/run/arm_context.hpp"
#include "kernels/ssu/family.hpp"

namespace kgate::ssu {
namespace {

inline float dt_eff(const HostProblem& hp, int64_t b, int64_t h) {
  float dt = hp.dt[b * hp.p.nheads + h] + hp.dt_bias[h];
  if (hp.p.softplus) dt = dt > 20.f ? dt : std::log1p(std::exp(dt));
  return dt;
}

// One input set: the per-call inputs (slots, x, B, C, z, dt) and the oracle; the weights (A, D,
// dt_bias) and the pristine state pool are set 0's, shared by every set.
struct Set {
  std::vector<int32_t> slots;
  std::vector<float> x, B, C, z, dt;
  Reference ref;
};

// Timed calls update the context's own pool, call after call; a verified call (and a check)
// starts from the pristine pool (hp_.state), so the oracle follows exactly one update.
class CpuContext final : public CpuArmContext<CpuArm<CpuFn>, Set> {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(Params::from_json(row.params), seed)), tol_(row.tolerance) {
    state_ = hp_.state;
    out_.assign(static_cast<size_t>(hp_.p.batch * hp_.p.nheads * kP), 0.f);
    add_set({hp_.slots, hp_.x, hp_.B, hp_.C, hp_.z, hp_.dt, reference(hp_)});
  }
  void prepare_verified(const Implementation&) override {
    copy_into(state_, hp_.state);
    std::fill(out_.begin(), out_.end(), poison_f32());
  }
  Correctness verify(const Implementation& impl) override {
    return check_arm(
        impl, hp_, [&]() -> const Reference& { return loaded().ref; }, state_, out_, tol_);
  }

 protected:
  void call(const CpuArm<CpuFn>& a) override { a.call(hp_, state_, out_); }
  Set make_set(uint64_t seed) const override {
    HostProblem hp = make_problem(hp_.p, seed, /*host_pool=*/false);
    hp.state = hp_.state;
    hp.A = hp_.A;
    hp.D = hp_.D;
    hp.dt_bias = hp_.dt_bias;
    Reference ref = reference(hp);
    return {std::move(hp.slots), std::move(hp.x),  std::move(hp.B), std::move(hp.C),
            std::move(hp.z),     std::move(hp.dt), std::move(ref)};
  }
  void load(const Set& set) override {
    copy_into(hp_.slots, set.slots);
    copy_into(hp_.x, set.x);
    copy_into(hp_.B, set.B);
    copy_into(hp_.C, set.C);
    copy_into(hp_.z, set.z);
    copy_into(hp_.dt, set.dt);
  }

 private:
  HostProblem hp_;  // the live inputs the arms read; state: the pristine pool
  Tolerance tol_;
  std::vector<float> state_, out_;
};

}  // namespace

void cpu_scalar(const HostProblem& hp, std::vector<float>& state, std::vector<float>& out) {
  const Params& p = hp.p;
  int64_t hpg = p.nheads / p.ngroups;
  std::vector<float> s(kP * kN);
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.nheads; ++h) {
      int32_t slot = hp.slots[b];
      int64_t g = h / hpg;
      float dt = dt_eff(hp, b, h), dA = std::exp(hp.A[h] * dt);
      const float* x = &hp.x[b * p.x_stride() + h * kP];
      const float* B = &hp.B[b * p.bc_stride() + g * kN];
      const float* C = &hp.C[b * p.bc_stride() + g * kN];
      float* st = slot >= 0 ? &state[((slot * p.nheads) + h) * kP * kN] : nullptr;
      for (int d = 0; d < kP; ++d) {
        float acc = 0;
        for (int n = 0; n < kN; ++n) {
          float v = (st ? st[d * kN + n] * dA : 0.f) + dt * B[n] * x[d];
          acc += v * C[n];  // out uses the fp32 state; only the stored copy is rounded
          if (st) st[d * kN + n] = p.state_bf16 ? round_bf16(v) : v;
        }
        float o = acc + hp.D[h] * x[d];
        if (p.has_z) {
          float z = hp.z[b * p.x_stride() + h * kP + d];
          o *= z / (1.f + std::exp(-z));
        }
        out[(b * p.nheads + h) * kP + d] = p.io_bf16 ? round_bf16(o) : o;
      }
    }
}

// One thread, on the calling thread: the CPU rows are tens of microseconds, so starting threads
// inside each timed call cost more than the work they split (the arm measured slower than the
// scalar loop it is meant to beat). Eigen vectorizes the update and the GEMV instead. The
// symbol keeps its registered name (family.cpp).
void cpu_eigen_threaded(const HostProblem& hp, std::vector<float>& state, std::vector<float>& out) {
  using Mat = Eigen::Matrix<float, kP, kN, Eigen::RowMajor>;
  using RowN = Eigen::Matrix<float, 1, kN>;
  using ColP = Eigen::Matrix<float, kP, 1>;
  const Params& p = hp.p;
  const int64_t hpg = p.nheads / p.ngroups;
  Mat s;
  for (int64_t b = 0; b < p.batch; ++b)
    for (int64_t h = 0; h < p.nheads; ++h) {
      const int64_t g = h / hpg;
      const int32_t slot = hp.slots[b];
      const float dt = dt_eff(hp, b, h), dA = std::exp(hp.A[h] * dt);
      Eigen::Map<const ColP> x(&hp.x[b * p.x_stride() + h * kP]);
      Eigen::Map<const RowN> B(&hp.B[b * p.bc_stride() + g * kN]);
      Eigen::Map<const RowN> C(&hp.C[b * p.bc_stride() + g * kN]);
      if (slot >= 0) {
        Eigen::Map<Mat> st(&state[((slot * p.nheads) + h) * kP * kN]);
        s.noalias() = st * dA + (dt * x) * B;
        if (p.state_bf16)
          st = s.unaryExpr([](float v) { return round_bf16(v); });
        else
          st = s;
      } else {
        s.noalias() = (dt * x) * B;
      }
      ColP o = s * C.transpose() + hp.D[h] * x;  // out uses the fp32 state; only the stored copy is rounded
      for (int d = 0; d < kP; ++d) {
        float v = o[d];
        if (p.has_z) {
          float z = hp.z[b * p.x_stride() + h * kP + d];
          v *= z / (1.f + std::exp(-z));
        }
        out[(b * p.nheads + h) * kP + d] = p.io_bf16 ? round_bf16(v) : v;
      }
    }
}

const CpuArm<CpuFn> kCpuScalarArm{&cpu_scalar};
const CpuArm<CpuFn> kCpuEigenArm{&cpu_eigen_threaded};

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed) {
  return std::make_unique<CpuContext>(row, seed);
}

}  // namespace kgate::ssu
