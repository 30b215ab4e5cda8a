#pragma once
// ag_gemm: the launch descriptor. CPU arms only today: no heuristic has a choice to make yet;
// a device arm's tile / overlap rules go here as pure functions of this descriptor.
#include <string>

#include "harness/core/jcs.hpp"
#include "kernels/ag_gemm/abi.h"

namespace kgate::ag_gemm {

struct Problem {
  int world_size = 0;
  long long m = 0, n = 0, k = 0;

  static Problem of(const ag_gemm_args& a) { return {a.world_size, a.m, a.n, a.k}; }
  long long rows() const { return world_size * m; }  // of the gathered A and of C
  std::string invalid() const {
    if (world_size < 1) return "world_size: must be >= 1, got " + std::to_string(world_size);
    if (m < 1 || n < 1 || k < 1) return "m, n, k: must be >= 1";
    return "";
  }
  json to_json() const { return {{"world_size", world_size}, {"m", m}, {"n", n}, {"k", k}}; }
};

}  // namespace kgate::ag_gemm
