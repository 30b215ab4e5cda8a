#include "references/axpy/axpy.hpp"

#include <string>

#include "harness/core/compare.hpp"
#include "harness/core/numeric.hpp"

namespace kgate::axpy {

HostProblem make_problem(const json& params, uint64_t seed) {
  HostProblem hp;
  hp.n = params.at("n").get<int64_t>();
  hp.a = static_cast<float>(params.at("a_milli").get<int64_t>()) / 1000.0f;
  hp.x.resize(static_cast<size_t>(hp.n));
  hp.y.resize(static_cast<size_t>(hp.n));
  for (size_t i = 0; i < hp.x.size(); ++i) {
    hp.x[i] = uniform_of(splitmix_mix((seed ^ 0xA0761D6478BD642Full) + (i + 1) * kGolden), -1.0f, 1.0f);
    hp.y[i] = uniform_of(splitmix_mix((seed ^ 0xE7037ED1A0B428DBull) + (i + 1) * kGolden), -2.0f, 2.0f);
  }
  return hp;
}

std::vector<double> reference(const HostProblem& hp) {
  std::vector<double> out(hp.y.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<double>(hp.a) * static_cast<double>(hp.x[i]) + static_cast<double>(hp.y[i]);
  return out;
}

Tolerance tolerance(const json&) { return Tolerance{1e-4, 1e-4}; }

Correctness check_y(const std::vector<float>& y, const std::vector<double>& ref, const Tolerance& tol) {
  // Compared in place: a verified timed call pays no copy of y (the call itself moves 12 bytes per
  // element, a double copy would cost more than the call).
  return compare_elements(
      y.size(), [&](size_t i) { return static_cast<double>(y[i]); }, [&](size_t i) { return ref[i]; },
      [&](size_t i) { return is_poison_f32(y[i]); }, tol, [](size_t i) { return "y[" + std::to_string(i) + "]"; });
}

}  // namespace kgate::axpy
