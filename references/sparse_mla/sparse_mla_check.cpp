// The oracle comparison: an arm's out and lse against the CPU reference.
#include <stdexcept>

#include "harness/core/numeric.hpp"
#include "harness/run/cpu_backend.hpp"
#include "references/sparse_mla/sparse_mla.hpp"

namespace kgate::sparse_mla {

Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& out,
                          const std::vector<float>& lse, const Tolerance& tol) {
  int64_t H = hp.p.heads;
  auto run = [&](const std::vector<float>& v, const std::vector<double>& r, int64_t inner, const char* name) {
    // The real rows against the reference; the padding rows after them must still hold the poison.
    if (v.size() < r.size()) throw std::logic_error(std::string(name) + ": output smaller than the reference");
    std::vector<double> o(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(r.size()));
    std::vector<bool> unw(r.size());
    for (size_t i = 0; i < r.size(); ++i) unw[i] = is_poison_f32(v[i]);
    Correctness c = compare_outputs(o, r, unw, tol, [&](size_t i) {
      return std::string(name) + "[t=" + std::to_string(i / (H * inner)) + ",h=" + std::to_string(i / inner % H) +
             (inner > 1 ? ",i=" + std::to_string(i % inner) : std::string()) + "]";
    });
    int64_t written = 0;
    size_t first = 0;
    for (size_t i = r.size(); i < v.size(); ++i)
      if (!is_poison_f32(v[i]) && written++ == 0) first = i;
    if (written) {
      // A real-row error keeps its name; otherwise the first written padding element is named.
      const bool real_errors = c.mismatches || c.nonfinite || c.unwritten;
      c.mismatches += written;
      c.passed = false;
      if (!real_errors)
        c.worst = std::string(name) + " padding row t=" + std::to_string(first / static_cast<size_t>(H * inner));
    }
    c.elements += static_cast<int64_t>(v.size() - r.size());
    return c;
  };
  Correctness c = run(out, ref.out, kD, "out");
  merge_check(c, run(lse, ref.lse, 1, "lse"), "lse");
  if (hp.p.q_pad_rows)
    c.note += (c.note.empty() ? "" : "; ") + std::to_string(hp.p.q_pad_rows) +
              " padding query rows left untouched: " + (c.passed ? "yes" : "checked");
  return c;
}

Tolerance tolerance(const json& params) {
  return params["kv_dtype"] == "fp8" ? Tolerance{0.1, 0.1} : Tolerance{1e-2, 1e-2};
}

}  // namespace kgate::sparse_mla
