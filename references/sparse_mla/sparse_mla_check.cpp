// The oracle comparison: an arm's out and lse against the CPU reference.
#include "harness/core/numeric.hpp"
#include "harness/run/cpu_backend.hpp"
#include "references/sparse_mla/sparse_mla.hpp"

namespace kgate::sparse_mla {

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

}  // namespace kgate::sparse_mla
