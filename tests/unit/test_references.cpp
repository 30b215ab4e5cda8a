// The oracles themselves: conventions checked against hand-computed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "harness/core/numeric.hpp"
#include "references/ag_gemm/ag_gemm.hpp"
#include "kernels/sparse_mla/config.hpp"
#include "kernels/sparse_mla/ws_plan.hpp"
#include "references/sparse_mla/sparse_mla.hpp"
#include "references/ssu/ssu.hpp"

using namespace kgate;

TEST(Numeric, Bf16AndFp8) {
  EXPECT_EQ(f32_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(round_bf16(1.00390625f), 1.0f);       // tie -> even
  EXPECT_EQ(round_bf16(1.01171875f), 1.015625f);  // tie -> even (up)
  EXPECT_EQ(fp8_e4m3_to_f32(0x38), 1.0f);
  EXPECT_EQ(fp8_e4m3_to_f32(0x7e), 448.0f);
  EXPECT_EQ(fp8_e4m3_to_f32(0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(fp8_e4m3_to_f32(0x7f)));
  EXPECT_EQ(fp8_e4m3_to_f32(0xb8), -1.0f);
  EXPECT_EQ(f32_to_fp8_e4m3(1000.f), 0x7e);  // saturates
  for (int c = 0; c < 0x7f; ++c) EXPECT_EQ(f32_to_fp8_e4m3(fp8_e4m3_to_f32(static_cast<uint8_t>(c))), c);
  EXPECT_TRUE(is_poison_f32(bf16_bits_to_f32(kPoisonBf16)));
}

// The binary search over the code values is the direct search it replaced (nearest of the 127
// finite non-negative codes, ties to the even code, saturating, NaN to 0), on every code, every
// midpoint between neighbours and 2^20 random values over the whole range.
TEST(Numeric, Fp8EncodeIsTheNearestCodeSearch) {
  auto direct = [](float f) {
    uint8_t best = 0;
    float bd = INFINITY, a = std::fabs(f);
    for (int c = 0; c < 0x7f; ++c) {
      float d = std::fabs(fp8_e4m3_to_f32(static_cast<uint8_t>(c)) - a);
      if (d < bd || (d == bd && (c & 1) == 0)) {
        bd = d;
        best = static_cast<uint8_t>(c);
      }
    }
    return static_cast<uint8_t>(best | (f < 0 ? 0x80 : 0));
  };
  std::vector<float> xs = {0.f, -0.f, NAN, -NAN, INFINITY, -INFINITY, 448.f, 464.f, 1e30f, -1e-30f};
  for (int c = 0; c < 0x7f; ++c) {
    const float v = fp8_e4m3_to_f32(static_cast<uint8_t>(c));
    xs.push_back(v);
    xs.push_back(-v);
    if (c + 1 < 0x7f) xs.push_back((v + fp8_e4m3_to_f32(static_cast<uint8_t>(c + 1))) / 2);
  }
  Rng rng(5);
  for (int i = 0; i < (1 << 20); ++i)
    xs.push_back(rng.normal() * std::ldexp(1.f, static_cast<int>(rng.below(24)) - 12));
  for (float x : xs) ASSERT_EQ(f32_to_fp8_e4m3(x), direct(x)) << x;
}

// pool_value(seed, i) is the chunked stream the pool was always filled with (chunk c from
// Rng(seed ^ 0xA24BAED4963EE407 * (c + 1)), values in order): receipts' problem data is unchanged,
// and the GPU generator (which calls pool_value) writes the same pool.
TEST(SsuReference, PoolValuesAreTheChunkedStream) {
  for (bool bf16 : {false, true}) {
    ssu::Params p{3, 8, 2, 70, 0, 0, bf16, true, false, true, false};  // 70 * 8 * 8192 values: 5 chunks
    const ssu::HostProblem hp = ssu::make_problem(p, 41);
    ASSERT_EQ(hp.state.size(), static_cast<size_t>(70 * 8 * 8192));
    for (uint64_t c = 0; c * ssu::kPoolChunk < hp.state.size(); ++c) {
      Rng r(41 ^ (0xA24BAED4963EE407ull * (c + 1)));
      for (uint64_t i = c * ssu::kPoolChunk; i < std::min<uint64_t>(hp.state.size(), (c + 1) * ssu::kPoolChunk); ++i) {
        const float v = r.uniform(-2.0f, 2.0f);
        ASSERT_EQ(hp.state[i], bf16 ? round_bf16(v) : v) << "value " << i;
      }
    }
    // Golden bits from the generator before pool_value existed (its Rng and loop, as they were),
    // so a change to the shared stream functions cannot pass by changing both sides.
    const std::pair<size_t, uint32_t> golden[] = {{0, 0xbf837586u},
                                                  {1, 0xbf96b490u},
                                                  {(1u << 20) - 1, 0xbe888184u},
                                                  {1u << 20, 0x3f1f2930u},
                                                  {3158073, 0x3f983bb0u}};
    for (const auto& [i, bits] : golden) {
      float f;
      std::memcpy(&f, &bits, 4);
      EXPECT_EQ(hp.state[i], bf16 ? round_bf16(f) : f) << "value " << i;
    }
    EXPECT_TRUE(ssu::make_problem(p, 41, false).state.empty());
    EXPECT_EQ(ssu::make_problem(p, 41, false).slots, hp.slots);
  }
}

TEST(SsuReference, PadSlotIsZeroStateAndPoolUntouched) {
  ssu::Params p{2, 2, 1, 4, 1, 0, false, false, false, false, false};
  ssu::HostProblem hp = ssu::make_problem(p, 3);
  int b = hp.slots[0] == -1 ? 0 : 1;
  ASSERT_EQ(hp.slots[b], -1);
  ssu::Reference r = ssu::reference(hp);
  // Pool unchanged except for the real slot.
  int real = hp.slots[1 - b];
  size_t per = 2 * ssu::kP * ssu::kN;
  for (size_t s = 0; s < 4; ++s)
    if (static_cast<int>(s) != real)
      for (size_t i = 0; i < per; ++i) ASSERT_EQ(r.state[s * per + i], hp.state[s * per + i]);
  // out for the pad row: sum_n dt B[n] x[d] C[n] + D x[d] (no softplus).
  int h = 1, d = 5;
  double dt = hp.dt[b * 2 + h] + hp.dt_bias[h];
  double x = hp.x[b * p.x_stride() + h * ssu::kP + d], acc = 0;
  for (int n = 0; n < ssu::kN; ++n) acc += dt * hp.B[b * p.bc_stride() + n] * x * hp.C[b * p.bc_stride() + n];
  EXPECT_NEAR(r.out[(b * 2 + h) * ssu::kP + d], acc + hp.D[h] * x, 1e-9);
}

// sparse_mla.fast's choice between its two 64-head kernels: the block-step and pair thresholds, both sides
// of each, on rows of the 94-row table's shapes.
TEST(SparseMlaConfig, WarpSpecializedFromTheBlockStepThresholds) {
  using kgate::sparse_mla::Problem;
  const Problem fp8_h64_t5{5, 64, 0, true}, fp8_h128_t40{40, 128, 0, true}, fp8_h64_t10_k512{10, 64, 512, true},
      fp8_h128_t10_k512{10, 128, 512, true}, bf16_h64_t5_k512{5, 64, 512, false}, bf16_h128_t10{10, 128, 0, false},
      bf16_h64_t40{40, 64, 0, false}, fp8_h32_big{514, 32, 512, true};
  EXPECT_EQ(fp8_h64_t5.block_steps(), 10);
  EXPECT_EQ(fp8_h128_t40.block_steps(), 160);
  EXPECT_EQ(fp8_h64_t10_k512.block_steps(), 100);
  EXPECT_EQ(bf16_h64_t5_k512.block_steps(), 50);
  EXPECT_EQ(bf16_h64_t40.block_steps(), 80);
  EXPECT_FALSE(fp8_h64_t5.warp_specialized());
  EXPECT_TRUE(fp8_h128_t40.warp_specialized());
  EXPECT_FALSE(fp8_h64_t10_k512.warp_specialized());
  EXPECT_TRUE(fp8_h128_t10_k512.warp_specialized());
  EXPECT_FALSE(bf16_h64_t5_k512.warp_specialized());  // 50 steps: lockstep (measured faster there)
  EXPECT_TRUE(bf16_h64_t40.warp_specialized());       // 80 steps
  EXPECT_FALSE(bf16_h128_t10.warp_specialized());     // 40 steps
  EXPECT_FALSE(fp8_h32_big.warp_specialized());       // 32 heads: the mma.sync path
  // FP8 from 80 steps when they are 40 pairs or more: 40 pairs x 2 blocks (h64 and h128) warp-specialized,
  // 20 pairs x 2 and 10 x 10 (100 steps) lockstep.
  const Problem fp8_h64_t40{40, 64, 0, true}, fp8_h128_t20{20, 128, 0, true}, fp8_h64_t20{20, 64, 0, true},
      fp8_h64_t39{39, 64, 64, true};
  EXPECT_EQ(fp8_h128_t20.pairs(), 40);
  EXPECT_TRUE(fp8_h64_t40.warp_specialized());
  EXPECT_TRUE(fp8_h128_t20.warp_specialized());
  EXPECT_FALSE(fp8_h64_t20.warp_specialized());  // 40 steps
  EXPECT_FALSE(fp8_h64_t39.warp_specialized());  // 117 steps of 39 pairs
  EXPECT_FALSE(fp8_h64_t10_k512.warp_specialized());
}

// The warp-specialized kernel's length-balanced plan (ws_plan.hpp), the walk the plan kernel runs:
// every pair's blocks covered once, in order, by segments whose slots and merge entries agree, each
// partition within its share, on ragged and uniform lengths (empty tokens too) and on plans where the
// last partition must take the rest.
namespace plan_check {
using namespace kgate::sparse_mla;

struct Shape {
  int tokens, groups, W, parts, overhead;
  bool ragged, one_long = false;  // one_long: token 0 all W columns, the others one block
};

// A plan as the test reads it back: each pair's segments as the partitions are walked in order.
struct Walked {
  const Shape& sh;
  const std::vector<int>& act;
  const std::vector<int>& plan;
  WsPlanLayout L;
  std::vector<int> next_block, segs, last_j, working;
  int nb(int t) const { return act[t] > 0 ? (act[t] + 63) / 64 : 1; }
};

// Partition p's items: each pair's segments must follow one another from block 0, within the share.
void check_partition(Walked& w, int p, long long share) {
  const Shape& sh = w.sh;
  const std::vector<int>& plan = w.plan;
  std::vector<const int*> its;
  const int* first = plan.data() + w.L.items_off() + 4 * p;
  ASSERT_LE(plan[4 + 2 * p], plan[5 + 2 * p]);
  if (first[0] < 0) {
    EXPECT_EQ(plan[4 + 2 * p], plan[5 + 2 * p]) << "a CTA without work has no further items";
    return;
  }
  w.working.push_back(p);
  its.push_back(first);
  for (int k = plan[4 + 2 * p]; k < plan[5 + 2 * p]; ++k)
    its.push_back(plan.data() + w.L.items_off() + 4 * (sh.parts + k));
  long long load = 0;
  for (const int* v : its) {
    const int t = v[0], g = v[1] & 255, j = (v[1] >> 8) - 1, b0 = v[2] & 0xffff, b1 = v[2] >> 16;
    ASSERT_GE(t, 0);
    ASSERT_LT(t, sh.tokens);
    ASSERT_LT(g, sh.groups);
    const int pair = t * sh.groups + g;
    EXPECT_EQ(v[3], w.act[t]);
    EXPECT_EQ(b0, w.next_block[pair]) << "segments of a pair in order, none missing or repeated";
    EXPECT_LT(b0, b1);
    EXPECT_LE(b1, w.nb(t));
    w.next_block[pair] = b1;
    ++w.segs[pair];
    if (j >= 0) EXPECT_EQ(j, w.segs[pair] - 1) << "a split pair's segments are its splits 0, 1, ...";
    w.last_j[pair] = j;
    load += b1 - b0 + sh.overhead;
  }
  if (p < sh.parts - 1) EXPECT_LE(load, share) << "partition " << p << " within its share";
}

// After the walk: CTAs with work spread evenly, every pair covered, segment counts as recorded.
void check_pairs(const Walked& w) {
  const Shape& sh = w.sh;
  const int used = static_cast<int>(w.working.size());
  for (int k = 0; k < used; ++k)
    EXPECT_EQ(w.working[k], static_cast<int>(static_cast<long long>(k) * sh.parts / used))
        << "the CTAs with work spread evenly";
  EXPECT_EQ(w.plan[0], used);
  int split_pairs = 0;
  for (int pair = 0; pair < w.L.pairs; ++pair) {
    EXPECT_EQ(w.next_block[pair], w.nb(pair / sh.groups)) << "pair " << pair << " fully covered";
    EXPECT_EQ(w.plan[w.L.nseg_off() + pair], w.segs[pair]) << "pair " << pair << "'s segment count";
    EXPECT_LE(w.segs[pair], ws_plan_max_segments(w.nb(pair / sh.groups)))
        << "pair " << pair << " within the partials' splits";
    if (w.segs[pair] == 1) EXPECT_EQ(w.last_j[pair], -1) << "a pair in one partition writes out itself";
    if (w.segs[pair] > 1) ++split_pairs;
  }
  if (sh.parts == 1) EXPECT_EQ(split_pairs, 0);
  if (sh.ragged && sh.W > 2 * 64 && sh.parts == 132 && sh.tokens * sh.groups < sh.parts)
    EXPECT_GT(split_pairs, 0) << "few long pairs are split (two blocks a segment at least)";
}

void check_plan(const Shape& sh, std::mt19937& rng) {
  std::vector<int> act(sh.tokens);
  for (int t = 0; t < sh.tokens; ++t)
    act[t] = sh.ragged ? static_cast<int>(rng() % (sh.W + 1)) : sh.one_long && t ? 64 : sh.W;
  if (sh.ragged) act[0] = 0;  // an empty token keeps one (masked) block
  const WsPlanLayout L{sh.parts, sh.tokens * sh.groups};
  std::vector<int> plan(static_cast<size_t>(L.ints()), -7);
  ws_plan_walk(act.data(), sh.tokens, sh.groups, sh.parts, sh.overhead, plan.data());
  Walked w{sh, act, plan, L, std::vector<int>(L.pairs, 0), std::vector<int>(L.pairs, 0), std::vector<int>(L.pairs, -2),
           {}};
  long long total = 0;
  for (int t = 0; t < sh.tokens; ++t) total += static_cast<long long>(w.nb(t) + sh.overhead) * sh.groups;
  // FlashMLA's share, or two blocks a segment (the plan's floor) where that is more.
  const long long share = std::max<long long>((total + sh.parts - 1) / sh.parts + sh.overhead, sh.overhead + 2);
  for (int p = 0; p < sh.parts; ++p) check_partition(w, p, share);
  check_pairs(w);
}

}  // namespace plan_check

TEST(SparseMlaPlan, EveryPairCoveredOnceWithinEachPartitionsShare) {
  using plan_check::Shape;
  const Shape shapes[] = {{20, 2, 1152, 132, 3, true},      {40, 2, 640, 132, 3, false}, {40, 1, 1152, 132, 5, false},
                          {257, 1, 640, 132, 3, false},     {10, 2, 128, 132, 0, true},  {5, 1, 128, 132, 3, false},
                          {80, 2, 1152, 132, 2, true},      {7, 3, 4096, 16, 1, true},   {30, 2, 640, 1, 3, true},
                          {4, 1, 4096, 132, 1, false, true}};
  std::mt19937 rng(7);
  for (const Shape& sh : shapes) {
    SCOPED_TRACE("tokens " + std::to_string(sh.tokens) + " groups " + std::to_string(sh.groups) + " W " +
                 std::to_string(sh.W) + " parts " + std::to_string(sh.parts) + " overhead " +
                 std::to_string(sh.overhead));
    plan_check::check_plan(sh, rng);
  }
}

// The share is the smallest that fits: 40 pairs of 18 blocks on 132 partitions split 6 + 6 + 6 (120
// partitions), where ceil(total / parts) + overhead would allow 7 + 7 + 4.
TEST(SparseMlaPlan, TheShareIsTheSmallestThatFits) {
  using namespace kgate::sparse_mla;
  std::vector<int> act(40, 1152);
  const WsPlanLayout L{132, 40};
  std::vector<int> plan(static_cast<size_t>(L.ints()));
  ws_plan_walk(act.data(), 40, 1, 132, 3, plan.data());
  int used = 0;
  for (int p = 0; p < 132; ++p) {
    const int* v = plan.data() + L.items_off() + 4 * p;
    if (v[0] < 0) continue;
    ++used;
    EXPECT_EQ((v[2] >> 16) - (v[2] & 0xffff), 6) << "partition " << p;
    EXPECT_EQ(plan[4 + 2 * p], plan[5 + 2 * p]) << "one segment per partition";
  }
  EXPECT_EQ(used, 120);
  EXPECT_EQ(plan[0], 120);
  for (int pair = 0; pair < 40; ++pair) EXPECT_EQ(plan[L.nseg_off() + pair], 3);
}

TEST(SparseMlaReference, EmptyTokenAndSingleRow) {
  sparse_mla::Params p{1, 2, 2, 4, 4, 0, 0, 0, false, false, false};
  sparse_mla::HostProblem hp = sparse_mla::make_problem(p, 9);
  hp.lens[0] = 0;  // token 0: no active row
  hp.lens[1] = 1;  // token 1: exactly one row -> out = that row, lse = score
  ASSERT_NE(hp.indices[1 * 128 + 0], -1);
  sparse_mla::Reference r = sparse_mla::reference(hp);
  EXPECT_TRUE(std::isinf(r.lse[0]) && r.lse[0] < 0);
  EXPECT_EQ(r.out[0], 0.0);
  std::vector<float> row(512);
  sparse_mla::decode_row(hp.swa.data(), hp.indices[128], p, row.data());
  EXPECT_EQ(r.out[(1 * 2 + 0) * 512 + 7], round_bf16(row[7]));
  double s = 0;
  for (int i = 0; i < 512; ++i) s += static_cast<double>(hp.q[(1 * 2) * 512 + i]) * row[i];
  EXPECT_NEAR(r.lse[2], s * hp.sm_scale, 1e-9);
}

// MODEL1 page blocks: with page_block 2, row 3 is the second row of block 1: its 576 B of data at
// 2 * 584 + 576, its scales at 2 * 584 + 2 * 576 + 8.
TEST(SparseMlaReference, Fp8RowLayoutIsModel1Pages) {
  sparse_mla::Params p{1, 1, 1, 4, 4, 0, 0, 0, true, false, false};
  p.page_block = 2;
  std::vector<uint8_t> table(4 * 584, 0);
  const size_t data = 2 * 584 + 576, scales = 2 * 584 + 2 * 576 + 8;
  table[data + 0] = 0x38;       // e4m3 1.0 in tile 0
  table[data + 64] = 0x40;      // e4m3 2.0 in tile 1
  table[scales + 0] = 127 + 2;  // tile 0 scale 4
  table[scales + 1] = 127 - 1;  // tile 1 scale 0.5
  uint16_t b = f32_to_bf16_bits(3.5f);
  std::memcpy(&table[data + 448 + 2 * 5], &b, 2);  // rope value 5
  std::vector<float> out(512);
  sparse_mla::decode_row(table.data(), 3, p, out.data());
  EXPECT_EQ(out[0], 4.0f);
  EXPECT_EQ(out[64], 1.0f);
  EXPECT_EQ(out[448 + 5], 3.5f);
  sparse_mla::decode_row(table.data(), 2, p, out.data());  // row 2: all zero bytes, scale 2^-127
  EXPECT_EQ(out[0], 0.0f);
}

// Hardening inputs: raw lengths plus an offset give the same reference as the canonical lengths;
// padding query rows are outside the reference and must stay untouched.
TEST(SparseMlaReference, LensOffsetAndPaddingRows) {
  sparse_mla::Params p{2, 2, 4, 128, 128, 64, 5, 0, true, true, true};
  const sparse_mla::HostProblem a = sparse_mla::make_problem(p, 5);
  p.lens_offset = 7;
  p.q_pad_rows = 3;
  const sparse_mla::HostProblem b = sparse_mla::make_problem(p, 5);
  for (size_t t = 0; t < a.lens.size(); ++t) {
    EXPECT_EQ(b.lens[t] + 7, a.lens[t]);
    EXPECT_EQ(b.active(static_cast<int64_t>(t)), a.active(static_cast<int64_t>(t)));
  }
  const sparse_mla::Reference ra = sparse_mla::reference(a), rb = sparse_mla::reference(b);
  EXPECT_EQ(ra.out, rb.out);
  EXPECT_EQ(ra.lse, rb.lse);
  // An "arm" that copies the reference into the real rows passes; writing a padding row fails.
  std::vector<float> out(static_cast<size_t>(p.q_rows() * 4 * 512), poison_f32()),
      lse(static_cast<size_t>(p.q_rows() * 4), poison_f32());
  for (size_t i = 0; i < rb.out.size(); ++i) out[i] = static_cast<float>(rb.out[i]);
  for (size_t i = 0; i < rb.lse.size(); ++i) lse[i] = static_cast<float>(rb.lse[i]);
  EXPECT_TRUE(sparse_mla::check_outputs(b, rb, out, lse, {0.1, 0.1}).passed);
  out[rb.out.size() + 4 * 512 + 3] = 0.f;  // padding row t = T + 1
  const Correctness c = sparse_mla::check_outputs(b, rb, out, lse, {0.1, 0.1});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.worst, "out padding row t=" + std::to_string(p.tokens() + 1)) << c.worst;
}

// Another input set of the same row (the timed-call proof): q's real rows and the index columns
// redrawn from the new seed, every column still a valid row or -1; the KV tables, the lengths (so
// a scheduler plan derived from them holds), the sink and the padding query rows kept.
TEST(SparseMlaReference, RedrawStepKeepsCachesLengthsAndPadding) {
  sparse_mla::Params p{2, 2, 4, 128, 128, 64, 5, 0, true, true, true};
  p.q_pad_rows = 2;
  const sparse_mla::HostProblem a = sparse_mla::make_problem(p, 5);
  sparse_mla::HostProblem b = a, c = a;
  sparse_mla::redraw_step(b, 9);
  sparse_mla::redraw_step(c, 9);
  EXPECT_EQ(b.q, c.q);
  EXPECT_EQ(b.indices, c.indices);
  EXPECT_EQ(b.swa, a.swa);
  EXPECT_EQ(b.compressed, a.compressed);
  EXPECT_EQ(b.lens, a.lens);
  EXPECT_EQ(b.sink, a.sink);
  const size_t real = static_cast<size_t>(p.tokens() * p.heads * 512);
  ASSERT_EQ(b.q.size(), a.q.size());
  EXPECT_TRUE(std::equal(b.q.begin() + static_cast<std::ptrdiff_t>(real), b.q.end(),
                         a.q.begin() + static_cast<std::ptrdiff_t>(real)));
  size_t q_same = 0, idx_same = 0;
  for (size_t i = 0; i < real; ++i) q_same += b.q[i] == a.q[i];
  for (size_t i = 0; i < b.indices.size(); ++i) {
    idx_same += b.indices[i] == a.indices[i];
    const int64_t rows = static_cast<int64_t>(i) % p.width() < sparse_mla::kSwaCols ? p.swa_rows : p.compressed_rows;
    EXPECT_TRUE(b.indices[i] >= -1 && b.indices[i] < rows) << i << ": " << b.indices[i];
  }
  EXPECT_LT(q_same, real / 16);
  EXPECT_LT(idx_same, b.indices.size() / 4);
  EXPECT_NE(sparse_mla::reference(b).out, sparse_mla::reference(a).out);
}

TEST(AgGemmReference, GatheredRankOrder) {
  ag_gemm::Params p{2, 1, 1, 2};
  ag_gemm::HostProblem hp;
  hp.p = p;
  hp.A = {{1, 2}, {3, 4}};
  hp.B = {10, 100};
  auto C = ag_gemm::reference(hp);
  ASSERT_EQ(C.size(), 2u);
  EXPECT_EQ(C[0], 210);  // 1*10 + 2*100, rank 0 first
  EXPECT_EQ(C[1], round_bf16(430));
}
