#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "harness/core/numeric.hpp"
#include "harness/core/parallel.hpp"
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
  p.page_block = j.value("page_block", int64_t{64});
  p.index_concat = j.value("index_layout", std::string("split")) == "concat";
  p.q_pad_rows = j.value("q_pad_rows", int64_t{0});
  p.lens_offset = j.value("lens_offset", int64_t{0});
  return p;
}

namespace {

// Byte offsets of row r's data and scales in an FP8 table (MODEL1 page blocks of pb rows).
int64_t fp8_data_at(int64_t r, int64_t pb) { return (r / pb) * pb * kFp8RowBytes + (r % pb) * kFp8DataBytes; }
int64_t fp8_scales_at(int64_t r, int64_t pb) {
  return (r / pb) * pb * kFp8RowBytes + pb * kFp8DataBytes + (r % pb) * kFp8ScaleBytes;
}

// fn(begin, end, rng) over [0, n) in chunks of `chunk` items, each chunk drawn from its own
// stream seeded by (base, chunk index): the same data on any number of threads. The tables of
// the large rows hold up to 33 M values, ~0.1 us each through Box-Muller.
template <class F>
void chunked(int64_t n, int64_t chunk, uint64_t base, const F& fn) {
  const int64_t chunks = (n + chunk - 1) / chunk;
  const unsigned nt = static_cast<unsigned>(std::clamp<int64_t>(chunks, 1, hardware_threads()));
  on_threads(nt, [&](unsigned t) {
    for (int64_t c = t; c < chunks; c += nt) {
      Rng rng(splitmix_mix(base + static_cast<uint64_t>(c) * kGolden));
      fn(c * chunk, std::min(n, (c + 1) * chunk), rng);
    }
  });
}

void fill_row(uint8_t* dst, const Params& p, int64_t r, Rng& rng) {
  if (!p.fp8) {
    uint8_t* row = &dst[static_cast<size_t>(r * 2 * kD)];
    for (int i = 0; i < kD; ++i) {
      uint16_t b = f32_to_bf16_bits(rng.normal());
      std::memcpy(row + 2 * i, &b, 2);
    }
    return;
  }
  uint8_t* data = dst + fp8_data_at(r, p.page_block);
  uint8_t* scales = dst + fp8_scales_at(r, p.page_block);
  for (int tile = 0; tile < 7; ++tile) {
    int e = 127 - 6 + static_cast<int>(rng.below(4));  // scales 2^-6 .. 2^-3
    scales[tile] = static_cast<uint8_t>(e);
    float scale = std::ldexp(1.0f, e - 127);
    for (int j = 0; j < 64; ++j) data[tile * 64 + j] = f32_to_fp8_e4m3(rng.normal() / scale);
  }
  for (int i = 0; i < 64; ++i) {
    uint16_t b = f32_to_bf16_bits(rng.normal());
    std::memcpy(data + 448 + 2 * i, &b, 2);
  }
  scales[7] = 0xA5;  // pad byte: never read
}

void fill_rows(std::vector<uint8_t>& dst, const Params& p, int64_t rows, Rng& rng) {
  if (p.fp8 && rows % p.page_block != 0)  // the family's check refuses such a row first
    throw std::invalid_argument("sparse_mla: FP8 tables are whole page blocks of page_block rows");
  dst.assign(static_cast<size_t>(rows * p.row_bytes()), 0);
  chunked(rows, 64, rng.next(), [&](int64_t r0, int64_t r1, Rng& rr) {
    for (int64_t r = r0; r < r1; ++r) fill_row(dst.data(), p, r, rr);
  });
}

// q rows [h0, h1) (a row = one (token, head) of 512 BF16-rounded values).
void fill_q(std::vector<float>& q, int64_t h0, int64_t h1, Rng& rng) {
  chunked(h1 - h0, 16, rng.next(), [&](int64_t r0, int64_t r1, Rng& rr) {
    for (int64_t i = (h0 + r0) * kD; i < (h0 + r1) * kD; ++i) q[static_cast<size_t>(i)] = round_bf16(rr.normal());
  });
}

// Token t's index columns: each a valid row of its table, or -1 with probability invalid_pct %.
void draw_index_row(HostProblem& hp, int64_t t, Rng& rng) {
  const Params& p = hp.p;
  const int64_t W = p.width();
  for (int64_t c = 0; c < W; ++c) {
    const bool invalid = static_cast<int64_t>(rng.below(100)) < p.invalid_pct;
    const int64_t n = c < kSwaCols ? p.swa_rows : p.compressed_rows;
    hp.indices[static_cast<size_t>(t * W + c)] =
        invalid ? -1 : static_cast<int32_t>(rng.below(static_cast<uint64_t>(n)));
  }
}

}  // namespace

void decode_row(const uint8_t* table, int64_t r, const Params& p, float* out) {
  if (!p.fp8) {
    const uint8_t* row = table + r * 2 * kD;
    for (int i = 0; i < kD; ++i) {
      uint16_t b;
      std::memcpy(&b, row + 2 * i, 2);
      out[i] = bf16_bits_to_f32(b);
    }
    return;
  }
  const uint8_t* data = table + fp8_data_at(r, p.page_block);
  const uint8_t* scales = table + fp8_scales_at(r, p.page_block);
  for (int tile = 0; tile < 7; ++tile) {
    float scale = std::ldexp(1.0f, static_cast<int>(scales[tile]) - 127);
    for (int j = 0; j < 64; ++j) out[tile * 64 + j] = fp8_e4m3_to_f32(data[tile * 64 + j]) * scale;
  }
  for (int i = 0; i < 64; ++i) {
    uint16_t b;
    std::memcpy(&b, data + 448 + 2 * i, 2);
    out[448 + i] = bf16_bits_to_f32(b);
  }
}

HostProblem make_problem(const Params& p, uint64_t seed) {
  Rng rng(seed);
  HostProblem hp;
  hp.p = p;
  int64_t T = p.tokens(), W = p.width();
  hp.q.resize(static_cast<size_t>(T * p.heads * kD));
  fill_q(hp.q, 0, T * p.heads, rng);
  fill_rows(hp.swa, p, p.swa_rows, rng);
  fill_rows(hp.compressed, p, p.compressed_rows, rng);
  hp.indices.resize(static_cast<size_t>(T * W));
  hp.lens.resize(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    draw_index_row(hp, t, rng);
    hp.lens[t] = static_cast<int32_t>(p.ragged ? 1 + rng.below(static_cast<uint64_t>(W)) : W);
  }
  for (int64_t e = 0; e < p.empty_tokens; ++e) hp.lens[rng.below(static_cast<uint64_t>(T))] = 0;
  // Raw lengths: the active count minus the offset the arm adds back.
  for (auto& l : hp.lens) l = static_cast<int32_t>(l - p.lens_offset);
  if (p.sink) {
    hp.sink.resize(static_cast<size_t>(p.heads));
    for (auto& v : hp.sink) v = rng.uniform(-2.f, 4.f);
  }
  // Padding query rows last, so a hardening row's real data is the canonical row's.
  hp.q.resize(static_cast<size_t>(p.q_rows() * p.heads * kD));
  if (p.q_rows() > T) fill_q(hp.q, T * p.heads, p.q_rows() * p.heads, rng);
  return hp;
}

void redraw_step(HostProblem& hp, uint64_t seed) {
  const Params& p = hp.p;
  Rng rng(seed);
  fill_q(hp.q, 0, p.tokens() * p.heads, rng);
  for (int64_t t = 0; t < p.tokens(); ++t) draw_index_row(hp, t, rng);
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
    for (int64_t c = 0; c < hp.active(t); ++c) {
      int32_t idx = hp.indices[t * W + c];
      if (idx < 0) continue;
      const auto& tab = c < kSwaCols ? hp.swa : hp.compressed;
      rows.resize(rows.size() + kD);
      decode_row(tab.data(), idx, p, &rows[rows.size() - kD]);
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
