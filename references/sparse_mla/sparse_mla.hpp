#pragma once
// sparse_mla: DeepSeek-V4-style sparse MLA decode. Conventions (the CPU reference is the oracle;
// kernels/sparse_mla/abi.h is the launch contract that follows them):
//  - q BF16 [q_rows, H, 512]: T = batch * q_len real query tokens, then q_pad_rows padding rows
//    (q_rows = T + q_pad_rows) that every arm ignores; out BF16 [q_rows, H, 512] and lse fp32
//    [q_rows, H] keep their padding rows untouched (bit-identical to what was there).
//  - Two KV tables of 512-wide rows, `swa` (sliding window) and `compressed`. BF16 rows: 512 BF16,
//    plain row-major (1024 B per row). FP8 rows: 448 e4m3 "NoPE" values, 64 BF16 RoPE values and
//    7 ue8m0 scales (one per 64-element tile of the 448: value = e4m3 * 2^(scale - 127)) + 1 pad
//    byte = 584 B, in FlashMLA's paged "MODEL1" arrangement: rows are grouped in page blocks of
//    page_block rows; block k holds its rows' 576 B of data (448 e4m3 then 64 BF16) one after the
//    other, then their 8 B of scales: row r's data at (r / P) * P * 584 + (r % P) * 576, its scales
//    at (r / P) * P * 584 + P * 576 + (r % P) * 8 (P = page_block). A table is whole blocks.
//  - Indices, the canonical representation: two int32 tables, swa [T, 128] into `swa` and
//    compressed [T, topk] into `compressed` (FlashMLA's main and "extra" caches); -1 = invalid
//    (skipped). Logical column c of a token (0 .. W - 1, W = 128 + topk) is swa column c for
//    c < 128, compressed column c - 128 above. index_layout "concat" (a hardening input) stores
//    the same columns as one [T, W] table, the compressed part a view at column 128.
//  - lens int32 [T]: column c is active when c < lens[t] + lens_offset (clamped to [0, W]);
//    lens_offset = 0 in the canonical rows, non-zero in hardening rows (raw lengths + offset).
//  - K and V are the same dequantized row. score = (q . row) * sm_scale, sm_scale = 512^-0.5,
//    over the active valid columns (a row indexed twice counts twice).
//  - lse = natural log of sum exp(score). out = softmax(score) . V. With a sink (fp32 [H]):
//    out *= 1 / (1 + exp(sink[h] - lse)), lse unchanged. No active valid column: out = 0,
//    lse = -inf (FlashMLA returns +inf there; its adapter maps it).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/records.hpp"

namespace kgate::sparse_mla {

inline constexpr int kD = 512;
inline constexpr int kFp8RowBytes = 584;
inline constexpr int kSwaCols = 128;

inline constexpr int kFp8DataBytes = 576;  // 448 e4m3 + 64 BF16
inline constexpr int kFp8ScaleBytes = 8;   // 7 ue8m0 + 1 pad

struct Params {
  int64_t batch, q_len, heads, swa_rows, compressed_rows, topk, invalid_pct, empty_tokens;
  bool fp8, ragged, sink;
  int64_t page_block = 64;    // FP8: rows per page block
  bool index_concat = false;  // indices as one [T, W] table (hardening)
  int64_t q_pad_rows = 0;     // padding query rows after the T real ones (hardening)
  int64_t lens_offset = 0;    // lens given as raw lengths; active = lens + offset (hardening)
  static Params from_json(const json& p);
  int64_t tokens() const { return batch * q_len; }
  int64_t q_rows() const { return tokens() + q_pad_rows; }
  int64_t width() const { return kSwaCols + topk; }
  int64_t row_bytes() const { return fp8 ? kFp8RowBytes : 2 * kD; }
};

struct HostProblem {
  Params p;
  std::vector<float> q;                  // [q_rows, H, 512], BF16-exact values (padding rows too: never read)
  std::vector<uint8_t> swa, compressed;  // the tables' bytes (FP8: MODEL1 page blocks)
  std::vector<int32_t> indices;          // [T, W] logical columns (SWA first); storage: index_concat
  std::vector<int32_t> lens;             // [T] as given (raw: active = lens + lens_offset)
  int64_t active(int64_t t) const {      // active columns of token t
    return std::clamp<int64_t>(static_cast<int64_t>(lens[static_cast<size_t>(t)]) + p.lens_offset, 0, p.width());
  }
  std::vector<float> sink;                // [H] or empty
  double sm_scale = 0.04419417382415922;  // 512^-0.5
};

HostProblem make_problem(const Params& p, uint64_t seed);
// Another layer of the same decode step: q's real rows and every index column drawn afresh from
// seed (each column still a valid row or -1), the KV tables, lengths, sink and padding query rows
// kept, so work an arm derived from the lengths (a scheduler plan) holds for both.
void redraw_step(HostProblem& hp, uint64_t seed);
// Row r of a table (its bytes as HostProblem holds them), dequantized.
void decode_row(const uint8_t* table, int64_t r, const Params& p, float* out512);

struct Reference {
  std::vector<double> out;  // [T, H, 512], rounded to BF16 (real tokens only)
  std::vector<double> lse;  // [T, H]
};
Reference reference(const HostProblem& hp);
// Checks out and lse ([q_rows, ...] as the arm left them, poisoned before the call) against the
// reference: the T real rows within the row tolerance (poison = unwritten), the padding rows
// still bit-identical poison.
Correctness check_outputs(const HostProblem& hp, const Reference& ref, const std::vector<float>& out,
                          const std::vector<float>& lse, const Tolerance& tol);
// A row's default tolerance, by its KV dtype (a case row may set its own).
Tolerance tolerance(const json& params);

}  // namespace kgate::sparse_mla
