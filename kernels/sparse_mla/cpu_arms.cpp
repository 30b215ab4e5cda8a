// CPU implementations of sparse_mla: per-(token, head) scalar loops, and an Eigen version that
// gathers a token's rows once and does the two products as matrix products for all heads.
#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "harness/core/numeric.hpp"
#include "harness/run/arm_context.hpp"
#include "kernels/sparse_mla/family.hpp"

namespace kgate::sparse_mla {
namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Dequantizes the token's active valid rows into `rows` (n x 512).
int64_t gather(const HostProblem& hp, int64_t t, RowMat& rows) {
  const Params& p = hp.p;
  int64_t W = p.width(), n = 0;
  rows.resize(std::max<int64_t>(1, hp.active(t)), kD);
  for (int64_t c = 0; c < hp.active(t); ++c) {
    int32_t idx = hp.indices[t * W + c];
    if (idx < 0) continue;
    const auto& tab = c < kSwaCols ? hp.swa : hp.compressed;
    decode_row(tab.data(), idx, p, rows.row(n).data());
    ++n;
  }
  return n;
}

void finish(const HostProblem& hp, int64_t t, int64_t h, float lse, float* out_row, std::vector<float>& lse_out) {
  float scale = hp.sink.empty() ? 1.f : 1.f / (1.f + std::exp(hp.sink[h] - lse));
  for (int i = 0; i < kD; ++i) out_row[i] = round_bf16(out_row[i] * scale);
  lse_out[t * hp.p.heads + h] = lse;
}

}  // namespace

void cpu_scalar(const HostProblem& hp, std::vector<float>& out, std::vector<float>& lse) {
  int64_t T = hp.p.tokens(), H = hp.p.heads;
  RowMat rows;
  std::vector<float> s;
  for (int64_t t = 0; t < T; ++t) {
    int64_t n = gather(hp, t, rows);
    s.resize(n);
    for (int64_t h = 0; h < H; ++h) {
      float* o = &out[(t * H + h) * kD];
      if (n == 0) {
        std::fill(o, o + kD, 0.f);
        lse[t * H + h] = -std::numeric_limits<float>::infinity();
        continue;
      }
      const float* q = &hp.q[(t * H + h) * kD];
      float mx = -INFINITY;
      for (int64_t j = 0; j < n; ++j) {
        float acc = 0;
        for (int i = 0; i < kD; ++i) acc += q[i] * rows(j, i);
        s[j] = acc * static_cast<float>(hp.sm_scale);
        mx = std::max(mx, s[j]);
      }
      float sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += (s[j] = std::exp(s[j] - mx));
      std::fill(o, o + kD, 0.f);
      for (int64_t j = 0; j < n; ++j)
        for (int i = 0; i < kD; ++i) o[i] += s[j] / sum * rows(j, i);
      finish(hp, t, h, mx + std::log(sum), o, lse);
    }
  }
}

void cpu_eigen_batched(const HostProblem& hp, std::vector<float>& out, std::vector<float>& lse) {
  int64_t T = hp.p.tokens(), H = hp.p.heads;
  RowMat rows, S, O;
  for (int64_t t = 0; t < T; ++t) {
    int64_t n = gather(hp, t, rows);
    Eigen::Map<RowMat> outT(&out[t * H * kD], H, kD);
    if (n == 0) {
      outT.setZero();
      for (int64_t h = 0; h < H; ++h) lse[t * H + h] = -std::numeric_limits<float>::infinity();
      continue;
    }
    Eigen::Map<const RowMat> Q(&hp.q[t * H * kD], H, kD);
    S.noalias() = (Q * rows.topRows(n).transpose()) * static_cast<float>(hp.sm_scale);
    Eigen::VectorXf mx = S.rowwise().maxCoeff();
    S = (S.colwise() - mx).array().exp().matrix();
    Eigen::VectorXf sum = S.rowwise().sum();
    O.noalias() = S * rows.topRows(n);
    for (int64_t h = 0; h < H; ++h) {
      outT.row(h) = O.row(h) / sum[h];
      finish(hp, t, h, mx[h] + std::log(sum[h]), outT.row(h).data(), lse);
    }
  }
}

namespace {

// One input set: the per-call inputs (queries, indices, lengths) and the oracle; the KV tables
// and the sink are set 0's, shared by every set (the cache a decode step reads).
struct Set {
  std::vector<float> q;
  std::vector<int32_t> indices, lens;
  Reference ref;
};

class CpuContext final : public CpuArmContext<CpuArm<CpuFn>, Set> {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(Params::from_json(row.params), seed)), tol_(row.tolerance) {
    // Outputs hold the padding query rows too (an arm must leave them alone).
    out_.resize(static_cast<size_t>(hp_.p.q_rows() * hp_.p.heads * kD));
    lse_.resize(static_cast<size_t>(hp_.p.q_rows() * hp_.p.heads));
    add_set({hp_.q, hp_.indices, hp_.lens, reference(hp_)});
  }
  void prepare_verified(const Implementation&) override {
    std::fill(out_.begin(), out_.end(), poison_f32());
    std::fill(lse_.begin(), lse_.end(), poison_f32());
  }
  Correctness verify(const Implementation&) override { return check_outputs(hp_, loaded().ref, out_, lse_, tol_); }

 protected:
  void call(const CpuArm<CpuFn>& a) override { a.call(hp_, out_, lse_); }
  Set make_set(uint64_t seed) const override {
    HostProblem hp = make_problem(hp_.p, seed);
    hp.swa = hp_.swa;
    hp.compressed = hp_.compressed;
    hp.sink = hp_.sink;
    Reference ref = reference(hp);
    return {std::move(hp.q), std::move(hp.indices), std::move(hp.lens), std::move(ref)};
  }
  void load(const Set& set) override {
    copy_into(hp_.q, set.q);
    copy_into(hp_.indices, set.indices);
    copy_into(hp_.lens, set.lens);
  }

 private:
  HostProblem hp_;  // the live inputs the arms read
  Tolerance tol_;
  std::vector<float> out_, lse_;
};

}  // namespace

const CpuArm<CpuFn> kCpuScalarArm{&cpu_scalar};
const CpuArm<CpuFn> kCpuEigenArm{&cpu_eigen_batched};

std::unique_ptr<RowContext> make_cpu_context(const CaseRow& row, uint64_t seed) {
  return std::make_unique<CpuContext>(row, seed);
}

}  // namespace kgate::sparse_mla
