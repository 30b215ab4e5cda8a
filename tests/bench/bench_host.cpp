// Host-side cost of the harness (run on demand: build/tests/kgate_bench). Targets on a 2-core
// CPU machine: seal of a 200-row receipt < 50 ms, union of 10^6 intervals < 100 ms.
#include <benchmark/benchmark.h>

#include "harness/core/gates.hpp"
#include "harness/core/intervals.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/schedule.hpp"

using namespace kgate;

static json synthetic_body(int rows) {
  Rng rng(1);
  Policy pol = Policy::parse("correct,strict,drift(0.02)");
  json rs = json::array();
  for (int i = 0; i < rows; ++i) {
    json row = {{"id", "row-" + std::to_string(i)}, {"family", "sparse_mla"},
                {"params", {{"batch", 4}, {"heads", 64}, {"q_len", 1}, {"kv_dtype", "fp8"}}},
                {"tags", {{"dtype", "fp8"}, {"phase", "decode"}}}, {"disposition", "passed"}, {"error", nullptr},
                {"correctness", json::array({{{"arm", "c"}, {"passed", true}, {"max_abs_err", rng.uniform()}}})},
                {"pairs", json::array({{{"baseline", "b"}, {"candidate", "c"}}})}, {"signatures", nullptr}};
    json s = {{"pairs", json::array()}};
    json gb = json::array(), gc = json::array();
    for (int g = 0; g < 3; ++g) {
      std::vector<double> b, c;
      for (int k = 0; k < 20; ++k) {
        b.push_back(10 + rng.uniform());
        c.push_back(8 + rng.uniform());
      }
      gb.push_back(b);
      gc.push_back(c);
    }
    s["pairs"].push_back({{"baseline", gb}, {"candidate", gc}});
    derive_row(row, s, pol);
    rs.push_back(row);
  }
  return json{{"_type", "https://in-toto.io/Statement/v1"}, {"subject", json::array()},
              {"predicate", {{"rows", rs}, {"summary", derive_summary(rs)}}}};
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
