#include "harness/run/cpu_backend.hpp"
#include "harness/core/numeric.hpp"
#include "references/ag_gemm/family.hpp"

namespace kgate::ag_gemm {
namespace {

using PS = ParamSpec;

class CpuContext final : public RowContext {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(Params::from_json(row.params), seed)), ref_(reference(hp_)), tol_(row.tolerance) {
    C_.resize(ref_.size());
  }
  Correctness check(const Implementation& impl) override {
    std::vector<float> C(C_.size(), poison_f32());
    reinterpret_cast<CpuFn>(impl.launch)(hp_, C);
    std::vector<double> o(C.begin(), C.end());
    std::vector<bool> unw(C.size());
    for (size_t i = 0; i < C.size(); ++i) unw[i] = is_poison_f32(C[i]);
    int64_t N = hp_.p.n;
    return compare_outputs(o, ref_, unw, tol_, [N](size_t i) {
      return "C[" + std::to_string(i / N) + "," + std::to_string(i % N) + "]";
    });
  }
  Sample time_once(const Implementation& impl) override {
    Sample s;
    s.us = host_time_us([&] { reinterpret_cast<CpuFn>(impl.launch)(hp_, C_); });
    return s;
  }
  double warm_call_us(const Implementation& impl) override { return time_once(impl).us; }

 private:
  HostProblem hp_;
  std::vector<double> ref_;
  Tolerance tol_;
  std::vector<float> C_;
};

}  // namespace

void register_family(Registry& r) {
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
  f.make_cpu_context = [](const CaseRow& row, uint64_t seed) -> std::unique_ptr<RowContext> {
    return std::make_unique<CpuContext>(row, seed);
  };
  r.add_family(std::move(f));
}

}  // namespace kgate::ag_gemm
