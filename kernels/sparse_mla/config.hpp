#pragma once
// sparse_mla: the launch descriptor, printed into every row's config. The device arms' split and
// tile rules (launch.cu: baseline_splits, fast_plan) are pure functions of the launch arguments.
#include <string>

#include "harness/core/jcs.hpp"
#include "kernels/sparse_mla/abi.h"

namespace kgate::sparse_mla {

struct Problem {
  int tokens = 0, heads = 0, topk = 0;
  bool kv_fp8 = false;

  static Problem of(const sparse_mla_args& a) { return {a.tokens, a.heads, a.topk, a.kv_fp8 != 0}; }
  int width() const { return 128 + topk; }  // index columns per token
  std::string invalid() const {
    if (tokens < 1) return "tokens: must be >= 1, got " + std::to_string(tokens);
    if (heads < 1) return "heads: must be >= 1, got " + std::to_string(heads);
    if (topk < 0) return "topk: must be >= 0, got " + std::to_string(topk);
    return "";
  }
  json to_json() const { return {{"tokens", tokens}, {"heads", heads}, {"topk", topk}, {"kv_dtype", kv_fp8 ? "fp8" : "bf16"}}; }
};

}  // namespace kgate::sparse_mla
