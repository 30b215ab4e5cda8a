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
  // Block steps of the 64-head paths: tokens x 64-head groups x 64-column blocks.
  long long block_steps() const { return static_cast<long long>(tokens) * ((heads + 63) / 64) * ((width() + 63) / 64); }
  // Whether a 64-head row (more than 32 heads, sm_90a) runs the warp-specialized kernel
  // (fast_ws.cuh) instead of the two-warpgroup lockstep one (fast_wg.cuh): from 160 block steps
  // (FP8) or 64 (BF16), about 1.2 and 0.5 per SM. Below that a row is mostly latency, and the
  // warp-specialized kernel's longer start (its producer loads the indices, then the rows) measured
  // 2-3 us slower on FP8 rows of 20-100 steps and ~1 us on BF16 rows of 10-40; from there up it
  // measured level or faster (kernels/sparse_mla/NOTES.md).
  // Re-measured with both kernels forced on the 58 h64/h128 rows: BF16 at 50 steps (5 tokens,
  // topk 512) lockstep 14.2 us vs 15.1, at 80 warp-specialized 13.7 vs 14.9.
  // FP8 from 80 steps too when they are 40 or more (token, 64-head group) pairs (about 0.3 per SM; 40 pairs are
  // at least 80 steps, so the pair count decides), measured on pairs of two blocks:
  // there the warp-specialized kernel runs one unsplit item per pair, where the lockstep one splits and pays a
  // combine kernel; both forced on the 28 FlashMLA rows: rows of 40 pairs x 2 blocks 13.5 us against 14.5 (h64)
  // and 12.7 against 14.2 (h128), while rows of 5-20 pairs lost 0.4-5 us.
  long long pairs() const { return static_cast<long long>(tokens) * ((heads + 63) / 64); }
  bool warp_specialized() const {
    if (heads <= 32) return false;
    return kv_fp8 ? block_steps() >= 160 || (block_steps() >= 80 && pairs() >= 40) : block_steps() >= 64;
  }
  json to_json() const {
    return {{"tokens", tokens}, {"heads", heads}, {"topk", topk}, {"kv_dtype", kv_fp8 ? "fp8" : "bf16"}};
  }
};

}  // namespace kgate::sparse_mla
