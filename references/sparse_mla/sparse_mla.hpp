#pragma once
// sparse_mla: DeepSeek-V4-style sparse MLA decode. Conventions (the CPU reference is the oracle):
//  - q BF16 [T, H, 512], T = batch * q_len query tokens.
//  - Two KV tables of 512-wide rows, `swa` (sliding window) and `compressed`. BF16 rows: 512 BF16
//    (1024 B). FP8 rows (584 B): 448 e4m3 values, then 64 BF16 values, then 7 ue8m0 scales (one
//    per 64-element tile of the first 448: value = e4m3 * 2^(scale - 127)), then 1 pad byte.
//  - indices int32 [T, W], W = 128 + topk: column c < 128 indexes `swa`, c >= 128 `compressed`;
//    -1 = invalid (skipped). lens int32 [T]: only columns c < lens[t] are active.
//  - K and V are the same dequantized row. score = (q . row) * sm_scale, sm_scale = 512^-0.5.
//  - lse fp32 [T, H] = natural log of sum exp(score) over active valid rows.
//  - out BF16 [T, H, 512] = softmax(score) . V. With a sink (fp32 [H]): out *= 1/(1 + exp(sink - lse)),
//    lse unchanged. No active valid row: out = 0, lse = -inf.
#include <cstdint>
#include <vector>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/records.hpp"

namespace kgate::sparse_mla {

inline constexpr int kD = 512;
inline constexpr int kFp8RowBytes = 584;
inline constexpr int kSwaCols = 128;

struct Params {
  int64_t batch, q_len, heads, swa_rows, compressed_rows, topk, invalid_pct, empty_tokens;
  bool fp8, ragged, sink;
  static Params from_json(const json& p);
  int64_t tokens() const { return batch * q_len; }
  int64_t width() const { return kSwaCols + topk; }
  int64_t row_bytes() const { return fp8 ? kFp8RowBytes : 2 * kD; }
};

struct HostProblem {
  Params p;
  std::vector<float> q;  // [T, H, 512], BF16-exact values
  std::vector<uint8_t> swa, compressed;  // raw rows
  std::vector<int32_t> indices, lens;
  std::vector<float> sink;  // [H] or empty
  double sm_scale = 0.04419417382415922;  // 512^-0.5
};

HostProblem make_problem(const Params& p, uint64_t seed);
void decode_row(const uint8_t* row, bool fp8, float* out512);

struct Reference {
  std::vector<double> out;  // [T, H, 512], rounded to BF16
  std::vector<double> lse;  // [T, H]
};
Reference reference(const HostProblem& hp);
// Checks out and lse against the reference (row tolerance, poisoned = unwritten).
Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& out,
                          const std::vector<float>& lse, const Tolerance& tol);

}  // namespace kgate::sparse_mla
