#include <cmath>
#include <cstring>
#include <limits>

#include "harness/core/numeric.hpp"
#include "references/sparse_mla/sparse_mla.hpp"

namespace kgate::sparse_mla {

Params Params::from_json(const json& j) {
  Params p;
  p.batch = j.at("batch");
  p.q_len = j.at("q_len");
  p.heads = j.at("heads");
  p.swa_rows = j.at("swa_rows");
  p.compressed_rows = j.at("compressed_rows");
  p.topk = j.at("topk");
  p.invalid_pct = j.at("invalid_pct");
  p.empty_tokens = j.at("empty_tokens");
  p.fp8 = j.at("kv_dtype") == "fp8";
  p.ragged = j.at("ragged");
  p.sink = j.at("sink");
  return p;
}

void decode_row(const uint8_t* row, bool fp8, float* out) {
  if (!fp8) {
    for (int i = 0; i < kD; ++i) {
      uint16_t b;
      std::memcpy(&b, row + 2 * i, 2);
      out[i] = bf16_bits_to_f32(b);
    }
    return;
  }
  for (int tile = 0; tile < 7; ++tile) {
    float scale = std::ldexp(1.0f, static_cast<int>(row[448 + 128 + tile]) - 127);
    for (int j = 0; j < 64; ++j) out[tile * 64 + j] = fp8_e4m3_to_f32(row[tile * 64 + j]) * scale;
  }
  for (int i = 0; i < 64; ++i) {
    uint16_t b;
    std::memcpy(&b, row + 448 + 2 * i, 2);
    out[448 + i] = bf16_bits_to_f32(b);
  }
}

static void fill_rows(std::vector<uint8_t>& dst, int64_t rows, bool fp8, Rng& rng) {
  int64_t rb = fp8 ? kFp8RowBytes : 2 * kD;
  dst.assign(static_cast<size_t>(rows * rb), 0);
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t* row = &dst[r * rb];
    if (!fp8) {
      for (int i = 0; i < kD; ++i) {
        uint16_t b = f32_to_bf16_bits(rng.normal());
        std::memcpy(row + 2 * i, &b, 2);
      }
      continue;
    }
    for (int tile = 0; tile < 7; ++tile) {
      int e = 127 - 6 + static_cast<int>(rng.below(4));  // scales 2^-6 .. 2^-3
      row[448 + 128 + tile] = static_cast<uint8_t>(e);
      float scale = std::ldexp(1.0f, e - 127);
      for (int j = 0; j < 64; ++j) row[tile * 64 + j] = f32_to_fp8_e4m3(rng.normal() / scale);
    }
    for (int i = 0; i < 64; ++i) {
      uint16_t b = f32_to_bf16_bits(rng.normal());
      std::memcpy(row + 448 + 2 * i, &b, 2);
    }
    row[583] = 0xA5;  // pad byte: never read
  }
}

HostProblem make_problem(const Params& p, uint64_t seed) {
  Rng rng(seed);
  HostProblem hp;
  hp.p = p;
  int64_t T = p.tokens(), W = p.width();
  hp.q.resize(static_cast<size_t>(T * p.heads * kD));
  for (auto& v : hp.q) v = round_bf16(rng.normal());
  fill_rows(hp.swa, p.swa_rows, p.fp8, rng);
  fill_rows(hp.compressed, p.compressed_rows, p.fp8, rng);
  hp.indices.resize(static_cast<size_t>(T * W));
  hp.lens.resize(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t c = 0; c < W; ++c) {
      bool invalid = static_cast<int64_t>(rng.below(100)) < p.invalid_pct;
      int64_t n = c < kSwaCols ? p.swa_rows : p.compressed_rows;
      hp.indices[t * W + c] = invalid ? -1 : static_cast<int32_t>(rng.below(static_cast<uint64_t>(n)));
    }
    hp.lens[t] = static_cast<int32_t>(p.ragged ? 1 + rng.below(static_cast<uint64_t>(W)) : W);
  }
  for (int64_t e = 0; e < p.empty_tokens; ++e) hp.lens[rng.below(static_cast<uint64_t>(T))] = 0;
  if (p.sink) {
    hp.sink.resize(static_cast<size_t>(p.heads));
    for (auto& v : hp.sink) v = rng.uniform(-2.f, 4.f);
  }
  return hp;
}

Reference reference(const HostProblem& hp) {
  const Params& p = hp.p;
  int64_t T = p.tokens(), W = p.width(), H = p.heads;
  Reference r;
  r.out.assign(static_cast<size_t>(T * H * kD), 0.0);
  r.lse.assign(static_cast<size_t>(T * H), -std::numeric_limits<double>::infinity());
  std::vector<float> rows;
  for (int64_t t = 0; t < T; ++t) {
    rows.clear();
    for (int64_t c = 0; c < std::min<int64_t>(hp.lens[t], W); ++c) {
      int32_t idx = hp.indices[t * W + c];
      if (idx < 0) continue;
      const auto& tab = c < kSwaCols ? hp.swa : hp.compressed;
      rows.resize(rows.size() + kD);
      decode_row(&tab[idx * p.row_bytes()], p.fp8, &rows[rows.size() - kD]);
    }
    size_t n = rows.size() / kD;
    if (n == 0) continue;
    std::vector<double> s(n);
    for (int64_t h = 0; h < H; ++h) {
      const float* q = &hp.q[(t * H + h) * kD];
      double mx = -INFINITY;
      for (size_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int i = 0; i < kD; ++i) acc += static_cast<double>(q[i]) * rows[j * kD + i];
        s[j] = acc * hp.sm_scale;
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (size_t j = 0; j < n; ++j) sum += std::exp(s[j] - mx);
      double lse = mx + std::log(sum);
      double scale = hp.sink.empty() ? 1.0 : 1.0 / (1.0 + std::exp(hp.sink[h] - lse));
      for (int i = 0; i < kD; ++i) {
        double acc = 0;
        for (size_t j = 0; j < n; ++j) acc += std::exp(s[j] - lse) * rows[j * kD + i];
        r.out[(t * H + h) * kD + i] = round_bf16(static_cast<float>(acc * scale));
      }
      r.lse[t * H + h] = lse;
    }
  }
  return r;
}

}  // namespace kgate::sparse_mla
