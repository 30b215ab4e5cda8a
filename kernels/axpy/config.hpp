#pragma once
// axpy: the problem descriptor and the work model, pure functions of it (a GPU family adds its
// launch heuristics here: which tile, how many blocks, as functions of the descriptor).
#include <cstdint>
#include <string>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "kernels/axpy/abi.h"

namespace kgate::axpy {

struct Problem {
  int64_t n = 0;

  static Problem from_json(const json& p) { return {p.at("n").get<int64_t>()}; }
  static Problem of(const axpy_args& a) { return {a.n}; }
  // "" when an arm can take it, else why not.
  std::string invalid() const { return n < 1 ? "n: must be >= 1" : ""; }
  json to_json() const { return {{"n", n}}; }
};

// Bytes: x read, y read and written, once each (fp32); FLOPs: one multiply-add per element.
inline Work work(const Problem& p) {
  const double n = static_cast<double>(p.n);
  return Work{12 * n, 2 * n};
}

}  // namespace kgate::axpy
