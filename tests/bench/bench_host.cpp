// Host-side cost of the harness (run on demand: build/tests/kgate_bench). Targets on a 2-core
// CPU machine: seal of a 200-row receipt < 50 ms, union of 10^6 intervals < 100 ms.
#include <benchmark/benchmark.h>

#include "harness/core/policy.hpp"
#include "harness/core/intervals.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/schedule.hpp"
#include "harness/core/verdicts.hpp"

using namespace kgate;

static json synthetic_body(int rows) {
  Rng rng(1);
  Policy pol = Policy::parse("correct,strict,drift(0.02)");
  DeriveContext ctx{0, {{"b", {"k"}}, {"c", {"k"}}}};
  std::vector<RowRecord> recs;
  json rs = json::array();
  for (int i = 0; i < rows; ++i) {
    RowRecord row;
    row.id = "row-" + std::to_string(i);
    row.family = "sparse_mla";
    row.params = {{"batch", 4}, {"heads", 64}, {"q_len", 1}, {"kv_dtype", "fp8"}};
    row.tags = {{"dtype", "fp8"}, {"phase", "decode"}};
    row.disposition = Disposition::passed;
    Correctness c;
    c.passed = true;
    c.max_abs_err = rng.uniform();
    row.correctness = {{"c", c}};
    row.pairs = {{"b", "c", {}, {}, {}, {}, {}, {}}};
    RowSamples s;
    s.baseline.resize(1);
    s.candidate.resize(1);
    for (int g = 0; g < 3; ++g) {
      std::vector<double> b, cs;
      for (int k = 0; k < 20; ++k) {
        b.push_back(10 + rng.uniform());
        cs.push_back(8 + rng.uniform());
      }
      s.baseline[0].push_back(b);
      s.candidate[0].push_back(cs);
    }
    derive_row(row, &s, pol, ctx);
    rs.push_back(to_json(row));
    recs.push_back(std::move(row));
  }
  return json{{"_type", "https://in-toto.io/Statement/v1"},
              {"subject", json::array()},
              {"predicate", {{"rows", rs}, {"summary", to_json(derive_summary(recs))}}}};
}

static void BM_SealReceipt200Rows(benchmark::State& st) {
  json body = synthetic_body(200);
  for (auto _ : st) {
    json r = seal_receipt(body, std::nullopt);
    benchmark::DoNotOptimize(receipt_bytes(r));
  }
}
BENCHMARK(BM_SealReceipt200Rows)->Unit(benchmark::kMillisecond);

static void BM_IntervalUnion1M(benchmark::State& st) {
  Rng rng(2);
  std::vector<Interval> base(1000000);
  uint64_t t = 0;
  for (auto& iv : base) {
    t += rng.below(2000);
    iv = {t, t + 500 + rng.below(3000), static_cast<int>(rng.below(8))};
  }
  for (auto _ : st) {
    std::vector<Interval> v = base;
    benchmark::DoNotOptimize(union_length(v));
  }
}
BENCHMARK(BM_IntervalUnion1M)->Unit(benchmark::kMillisecond);

static void BM_Plan94Rows(benchmark::State& st) {
  ScheduleConfig cfg{3, 2, 5, 7};
  for (auto _ : st) {
    auto u = plan_units(94, cfg);
    for (const auto& x : u) benchmark::DoNotOptimize(block_letters(cfg, x.group, x.row));
  }
}
BENCHMARK(BM_Plan94Rows)->Unit(benchmark::kMicrosecond);
