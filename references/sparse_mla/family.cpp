#include "harness/run/cpu_backend.hpp"
#include "harness/core/numeric.hpp"
#include "references/sparse_mla/family.hpp"

namespace kgate::sparse_mla {
namespace {

using PS = ParamSpec;

class CpuContext final : public RowContext {
 public:
  CpuContext(const CaseRow& row, uint64_t seed)
      : hp_(make_problem(Params::from_json(row.params), seed)), ref_(reference(hp_)), tol_(row.tolerance) {
    out_.resize(ref_.out.size());
    lse_.resize(ref_.lse.size());
  }
  Correctness check(const Implementation& impl) override {
    std::vector<float> out(out_.size(), poison_f32()), lse(lse_.size(), poison_f32());
    reinterpret_cast<CpuFn>(impl.launch)(hp_, out, lse);
    return check_outputs(hp_, ref_, out, lse, tol_);
  }
  Sample time_once(const Implementation& impl) override {
    Sample s;
    s.us = host_time_us([&] { reinterpret_cast<CpuFn>(impl.launch)(hp_, out_, lse_); });
    return s;
  }
  double warm_call_us(const Implementation& impl) override { return time_once(impl).us; }

 private:
  HostProblem hp_;
  Reference ref_;
  Tolerance tol_;
  std::vector<float> out_, lse_;
};

}  // namespace

Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& out,
                          const std::vector<float>& lse, const Tolerance& tol) {
  int64_t H = hp.p.heads;
  auto run = [&](const std::vector<float>& v, const std::vector<double>& r, int64_t inner, const char* name) {
    std::vector<double> o(v.begin(), v.end());
    std::vector<bool> unw(v.size());
    for (size_t i = 0; i < v.size(); ++i) unw[i] = is_poison_f32(v[i]);
    return compare_outputs(o, r, unw, tol, [&](size_t i) {
      return std::string(name) + "[t=" + std::to_string(i / (H * inner)) + ",h=" + std::to_string(i / inner % H) +
             (inner > 1 ? ",i=" + std::to_string(i % inner) : std::string()) + "]";
    });
  };
  Correctness c = run(out, ref.out, kD, "out");
  merge_check(c, run(lse, ref.lse, 1, "lse"), "lse");
  return c;
}

void register_family(Registry& r) {
  Family f;
  f.name = "sparse_mla";
  f.summary = "DeepSeek-V4-style sparse MLA decode (BF16 or FP8 KV, SWA + compressed indices)";
  f.params = {
      {"batch", PS::Kind::Int, true, 1, 1 << 16, {}, {}, "requests"},
      {"q_len", PS::Kind::Int, true, 1, 4096, {}, {}, "query tokens per request"},
      {"heads", PS::Kind::Int, true, 1, 1024, {}, {}, "query heads"},
      {"kv_dtype", PS::Kind::String, true, 0, 0, {"bf16", "fp8"}, {}, "KV row format"},
      {"swa_rows", PS::Kind::Int, true, 1, 1 << 24, {}, {}, "rows in the SWA table"},
      {"compressed_rows", PS::Kind::Int, true, 1, 1 << 24, {}, {}, "rows in the compressed table"},
      {"topk", PS::Kind::Int, false, 0, 1 << 16, {}, 0, "compressed index columns (W = 128 + topk)"},
      {"invalid_pct", PS::Kind::Int, false, 0, 100, {}, 5, "percent of -1 indices"},
      {"ragged", PS::Kind::Bool, false, 0, 0, {}, false, "random lens in [1, W]"},
      {"empty_tokens", PS::Kind::Int, false, 0, 1 << 20, {}, 0, "tokens forced to lens = 0"},
      {"sink", PS::Kind::Bool, false, 0, 0, {}, false, "attention sink per head"},
  };
  f.check = [](const json& p) -> std::string {
    if (p["empty_tokens"].get<int64_t>() > p["batch"].get<int64_t>() * p["q_len"].get<int64_t>())
      return "empty_tokens: more than batch * q_len tokens";
    return "";
  };
  f.tolerance = [](const json& p) {
    return p["kv_dtype"] == "fp8" ? Tolerance{0.1, 0.1} : Tolerance{1e-2, 1e-2};
  };
  f.make_cpu_context = [](const CaseRow& row, uint64_t seed) -> std::unique_ptr<RowContext> {
    return std::make_unique<CpuContext>(row, seed);
  };
  r.add_family(std::move(f));
}

}  // namespace kgate::sparse_mla
