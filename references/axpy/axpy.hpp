#pragma once
// axpy: y = a * x + y over n fp32 elements, in place. Conventions (the CPU reference is the
// oracle):
//  - x and y are fp32 [n], contiguous; y is read and written (an arm updates it in place).
//  - a = a_milli / 1000, as fp32.
//  - Inputs are a function of (seed, element) alone: x uniform in [-1, 1), y uniform in [-2, 2),
//    each element from its own splitmix output (x's stream seeded seed ^ 0xA0761D6478BD642F,
//    y's seed ^ 0xE7037ED1A0B428DB): never all zeros.
//  - The reference is a * x + y in double; fp32 arms are within 1e-4 (absolute and relative).
#include <cstdint>
#include <vector>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/records.hpp"

namespace kgate::axpy {

struct HostProblem {
  int64_t n = 0;
  float a = 0;
  std::vector<float> x, y;  // y: the input y (an arm's buffers start as a copy of it)
};

HostProblem make_problem(const json& params, uint64_t seed);
std::vector<double> reference(const HostProblem& hp);  // a * x + y, [n]
// A row's default tolerance (a case row may set its own).
Tolerance tolerance(const json& params);
// An arm's y against the reference; `y` marked poisoned where never written.
Correctness check_y(const std::vector<float>& y, const std::vector<double>& ref, const Tolerance& tol);

}  // namespace kgate::axpy
