// Statistics and verdicts over typed rows (harness/core/verdicts.hpp): the one place where a
// row's derived numbers and gate verdicts are computed, by the writer and the auditor alike.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "harness/core/errors.hpp"
#include "harness/core/verdicts.hpp"

using namespace kgate;

namespace {

RowRecord make_row(bool correct = true, std::vector<std::string> baselines = {"b"}) {
  RowRecord row;
  row.id = "r";
  row.family = "ssu";
  row.tags = {{"band", "b1-b8"}};
  row.disposition = correct ? Disposition::passed : Disposition::incorrect;
  Correctness c;
  c.passed = correct;
  row.correctness = {{"c", c}};
  for (const auto& b : baselines) row.pairs.push_back({b, "c", {}, {}, {}, {}, {}, {}, {}});
  return row;
}
// One pair; each group's samples given as a list.
RowSamples groups(std::vector<std::vector<double>> b, std::vector<std::vector<double>> c) {
  RowSamples s;
  s.baseline = {std::move(b)};
  s.candidate = {std::move(c)};
  return s;
}
RowSamples flat(double b, double c) { return groups({{b, b}, {b, b}}, {{c, c}, {c, c}}); }
// One block per group: these rows hold a sample or two per group.
DeriveContext ctx() { return {0, {{"b", {"k"}}, {"c", {"k"}}, {"base", {"k"}}, {"floor", {"k"}}}, 1, 1, {}}; }
RowRecord derived(RowRecord row, const RowSamples& s, const Policy& p) {
  derive_row(row, &s, p, ctx());
  return row;
}

}  // namespace

TEST(Verdicts, StrictTieFailsAndLimitIsInclusive) {
  Policy p = Policy::parse("correct,strict,limit(0.05)");
  RowRecord row = derived(make_row(), flat(10, 10), p);
  EXPECT_EQ(row.verdicts.raw["strict"], false);  // tie
  EXPECT_EQ(row.verdicts.raw["limit"], true);
  EXPECT_FALSE(row.verdicts.policy);
  EXPECT_EQ(derived(make_row(), flat(10, 10.5), p).verdicts.raw["limit"], true);  // exactly 1.05x: inclusive
  EXPECT_EQ(derived(make_row(), flat(10, 10.6), p).verdicts.raw["limit"], false);
  row = derived(make_row(), flat(10, 8), p);
  EXPECT_TRUE(row.verdicts.policy);
  EXPECT_DOUBLE_EQ(*row.pairs[0].ratio, 1.25);
  EXPECT_EQ(row.pairs[0].baseline_stats->n, 4);
}

TEST(Verdicts, LimitByTagOverridesPolicyLimit) {
  Policy p =
      Policy::from_json(json{{"gates", {"limit"}}, {"limit", 0.05}, {"limit_by_tag", {{"band=b1-b8", 0.5}}}}, "p");
  RowRecord row = derived(make_row(), flat(10, 14), p);
  EXPECT_EQ(row.verdicts.raw["limit_value"], 0.5);
  EXPECT_TRUE(row.verdicts.policy);
}

TEST(Verdicts, IncorrectRowFailsAndStaysUnmeasured) {
  RowRecord row = make_row(false);
  derive_row(row, nullptr, Policy::parse("correct"), ctx());
  EXPECT_EQ(row.verdicts.raw["correct"], false);
  EXPECT_FALSE(row.pairs[0].ratio);
  EXPECT_FALSE(row.verdicts.policy);
  Summary s = derive_summary({row});
  EXPECT_EQ(s.rows, 1);
  EXPECT_EQ(s.policy_failed, 1);
  EXPECT_EQ(s.by_baseline["b"].unmeasured_rows, 1);
  EXPECT_FALSE(s.by_baseline["b"].geomean_ratio);
}

TEST(Verdicts, ARowThatFailedAfterItsCorrectnessCheckFailsEveryPolicy) {
  RowRecord row = make_row();
  row.disposition = Disposition::failed;  // e.g. a fault during timing, after every arm checked correct
  derive_row(row, nullptr, Policy::parse("correct"), ctx());
  EXPECT_EQ(row.verdicts.raw["correct"], true);
  EXPECT_FALSE(row.verdicts.policy);
  EXPECT_EQ(row.verdicts.failed, std::vector<std::string>{"disposition"});
}

TEST(Verdicts, APassedRowWithoutSamplesIsAnAuditError) {
  RowRecord row = make_row();
  EXPECT_THROW(derive_row(row, nullptr, Policy::parse("correct"), ctx()), AuditError);
}

TEST(Verdicts, DriftAndActivityGates) {
  Policy p = Policy::parse("drift(0.02),parity,fallback");
  RowRecord row = derived(make_row(), groups({{10.0}, {10.0}, {10.0}}, {{5.0}, {5.0}, {4.0}}), p);
  EXPECT_EQ(row.verdicts.raw["drift"], false);        // 2.5 / 2 - 1 = 25 %
  EXPECT_TRUE(row.verdicts.raw["parity"].is_null());  // host timer: no activity records
  EXPECT_EQ(row.verdicts.failed.size(), 3u);
  RowSamples s = flat(10, 5);
  s.signatures["b"] = {{Signature{2, 2, {"k"}}, 4}};
  s.signatures["c"] = {{Signature{2, 2, {"k_cutlass_fallback"}}, 4}};
  DeriveContext c = ctx();
  c.declared_kernels["c"] = {"kernel_c"};
  row = make_row();
  derive_row(row, &s, p, c);
  EXPECT_EQ(row.verdicts.raw["parity"], true);
  EXPECT_EQ(row.verdicts.raw["fallback"], false);
  EXPECT_EQ((*row.signatures)["c"].undeclared, std::vector<std::string>{"k_cutlass_fallback"});
}

TEST(Verdicts, ASignatureThatChangesBetweenGroupsIsInconsistent) {
  // Each group on its own is consistent; the merged counts hold two distinct signatures.
  std::vector<SignatureCount> merged = {{Signature{1, 1, {"k"}}, 12}};
  merge_signature_counts(merged, {{Signature{1, 1, {"k"}}, 12}});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].calls, 24);
  merge_signature_counts(merged, {{Signature{2, 2, {"k", "k_tail"}}, 12}});
  ASSERT_EQ(merged.size(), 2u);
  RowSamples s = flat(10, 5);
  s.signatures["b"] = {{Signature{1, 1, {"k"}}, 36}};
  s.signatures["c"] = merged;
  RowRecord row = derived(make_row(), s, Policy::parse("parity"));
  EXPECT_FALSE((*row.signatures)["c"].consistent);
  EXPECT_EQ((*row.signatures)["c"].calls, 36);
  EXPECT_EQ(row.verdicts.raw["parity"], false);
}

TEST(Verdicts, DriftDirectionOnlyCountsOnceResolved) {
  Policy p = Policy::parse("drift(0.02)");
  // A/A: pooled 1.000, groups 0.999 and 1.001 straddle 1: a tie, not a disagreement.
  RowRecord row = derived(make_row(), groups({{9.99}, {10.01}, {10.0}}, {{10.0}, {10.0}, {10.0}}), p);
  EXPECT_FALSE(*row.pairs[0].groups_agree);
  EXPECT_EQ(row.verdicts.raw["drift"], true);
  // Resolved (pooled 1.0201 > 1 + D) and drift 1.98 % <= D, but one group below 1: a real
  // disagreement, so the gate fails on direction alone.
  row = derived(make_row(), groups({{10.201}, {10.201}, {9.999}}, {{10.0}, {10.0}, {10.0}}), p);
  EXPECT_LE(*row.pairs[0].drift, 0.02);
  EXPECT_FALSE(*row.pairs[0].groups_agree);
  EXPECT_EQ(row.verdicts.raw["drift"], false);
}

TEST(Verdicts, SideSeriesAndThrottleAreDerivedFromTheSamples) {
  RowSamples s = flat(10, 5);
  s.side["c"].sm_clock_mhz = {1980, 1980, 1500, 1980};
  s.side["c"].events_us = {6, 5, 7};
  s.side["b"].self_us = {9.5};
  RowRecord row = make_row();
  DeriveContext c = ctx();
  c.max_sm_clock_mhz = 1980;
  derive_row(row, &s, Policy::parse("correct"), c);
  EXPECT_EQ(*row.throttled_samples, 1);  // 1500 < 0.95 x 1980
  EXPECT_DOUBLE_EQ((*row.events_timer_us)["c"].median, 6);
  EXPECT_EQ((*row.events_timer_us)["c"].n, 3);
  EXPECT_DOUBLE_EQ((*row.self_clock_us)["b"].median, 9.5);
  EXPECT_FALSE(row.self_clock_us->count("c"));
}

namespace {
// A row with two pairs: candidate c against a baseline (12 us) and a floor (9 us).
RowSamples two_pair_samples(double c) {
  RowSamples s;
  s.baseline = {{{12.0, 12.0}}, {{9.0, 9.0}}};
  s.candidate = {{{c, c}}, {{c, c}}};
  return s;
}
Policy strict_and_floor() {
  return Policy::from_json(json::parse(R"({"gates": ["correct"], "by_baseline": {
      "base": {"gates": ["strict"]},
      "floor": {"gates": ["limit"], "limit": 0.05, "limit_by_tag": {"band=b9": 0.5}}}})"),
                           "p");
}
}  // namespace

TEST(Verdicts, ByBaselineJudgesEachPairByItsOwnGates) {
  Policy p = strict_and_floor();
  RowRecord row = derived(make_row(true, {"base", "floor"}), two_pair_samples(9.3), p);
  EXPECT_TRUE(row.verdicts.policy) << row.verdicts.raw.dump();
  EXPECT_EQ(row.verdicts.raw["by_baseline"]["base"]["strict"], true);
  EXPECT_EQ(row.verdicts.raw["by_baseline"]["floor"]["limit"], true);
  // The top-level pair gates judge no pair here: null, and not required.
  EXPECT_TRUE(row.verdicts.raw["strict"].is_null());
  row = derived(make_row(true, {"base", "floor"}), two_pair_samples(9.6), p);  // 1.067x the floor
  EXPECT_EQ(row.verdicts.failed, std::vector<std::string>{"limit@floor"});
  row = derived(make_row(true, {"base", "floor"}), two_pair_samples(12.5), p);  // slower than base too
  EXPECT_EQ(row.verdicts.failed, (std::vector<std::string>{"strict@base", "limit@floor"}));
}

TEST(Verdicts, SummaryCountsGeomeansAndTheSlowestRow) {
  Policy p = Policy::parse("strict");
  RowRecord a = derived(make_row(), flat(10, 5), p);  // 2.0
  RowRecord b = derived(make_row(), flat(10, 8), p);  // 1.25
  b.id = "slow";
  b.tags = {{"band", "b16"}};
  b = derived(b, flat(10, 8), p);
  Summary s = derive_summary({a, b});
  EXPECT_EQ(s.rows, 2);
  EXPECT_EQ(s.policy_passed, 2);
  EXPECT_NEAR(*s.by_baseline["b"].geomean_ratio, std::sqrt(2.0 * 1.25), 1e-12);
  EXPECT_EQ(*s.by_baseline["b"].min_ratio_row, "slow");
  EXPECT_DOUBLE_EQ(s.by_baseline["b"].sum_candidate_median_us, 13);
  EXPECT_EQ(s.by_baseline["b"].by_tag["band=b16"].rows, 1);
  EXPECT_EQ(s.dispositions["passed"], 2);
}

namespace {
// A synthetic default-protocol row: 3 groups x 6 blocks x 2 letters x m = 2 samples per arm,
// lognormal noise (sigma 1 %), 5 % of samples with a slow outlier, 32 ns timer quantization.
RowSamples noisy_row(std::mt19937_64& rng, double baseline_scale) {
  std::normal_distribution<double> noise(0, 0.01);
  std::uniform_real_distribution<double> u(0, 1);
  std::exponential_distribution<double> tail(2.0);
  auto draw = [&](double scale) {
    double x = 10.0 * scale * std::exp(noise(rng));
    if (u(rng) < 0.05) x += tail(rng);
    return std::round(x / 0.032) * 0.032;
  };
  RowSamples s;
  s.baseline.resize(1);
  s.candidate.resize(1);
  for (int g = 0; g < 3; ++g) {
    std::vector<double> b, c;
    for (int i = 0; i < 24; ++i) {
      b.push_back(draw(baseline_scale));
      c.push_back(draw(1.0));
    }
    s.baseline[0].push_back(b);
    s.candidate[0].push_back(c);
  }
  return s;
}
DeriveContext protocol_ctx(uint64_t seed) {
  DeriveContext c = ctx();
  c.blocks = 6;
  c.seed = seed;
  return c;
}
}  // namespace

// A/A (the same distribution on both sides) is never resolved faster, though the median rule
// passes about half of the rows; a real 2 % difference under the same noise always is.
TEST(Verdicts, AaIsNeverStrictAndATwoPercentDifferenceAlwaysIs) {
  std::mt19937_64 rng(20261201);
  Policy p = Policy::parse("strict");
  int aa_strict = 0, aa_strict_median = 0, two_strict = 0;
  const int rows = 300;
  for (int i = 0; i < rows; ++i) {
    RowRecord aa = make_row(), two = make_row();
    aa.id = two.id = "row-" + std::to_string(i);
    derive_row(aa, &(const RowSamples&)noisy_row(rng, 1.0), p, protocol_ctx(7 + i));
    derive_row(two, &(const RowSamples&)noisy_row(rng, 1.02), p, protocol_ctx(7 + i));
    aa_strict += aa.verdicts.raw["strict"].get<bool>();
    aa_strict_median += aa.verdicts.raw["strict_median"].get<bool>();
    two_strict += two.verdicts.raw["strict"].get<bool>();
    ASSERT_LE(aa.pairs[0].ratio_ci->lo, *aa.pairs[0].ratio);
    ASSERT_GE(aa.pairs[0].ratio_ci->hi, *aa.pairs[0].ratio);
  }
  EXPECT_EQ(aa_strict, 0);
  EXPECT_GT(aa_strict_median, rows / 4);  // the old rule: noise passes
  EXPECT_EQ(two_strict, rows);
}

// The case that motivated the interval: the pooled ratio is above 1 (1.0008) but the groups
// disagree (0.984, 1.013, 1.083). The median rule passes it; the interval does not.
TEST(Verdicts, GroupsThatDisagreeAreNotResolved) {
  RowSamples s;
  s.baseline = {{}};
  s.candidate = {{}};
  for (double gr : {0.984, 1.013, 1.083}) {
    std::vector<double> b, c;
    for (int i = 0; i < 24; ++i) {
      c.push_back(10.0 + 0.01 * (i % 5));
      b.push_back(c.back() * gr);
    }
    s.baseline[0].push_back(b);
    s.candidate[0].push_back(c);
  }
  RowRecord row = make_row();
  derive_row(row, &s, Policy::parse("strict"), protocol_ctx(1));
  EXPECT_EQ(row.verdicts.raw["strict_median"], true);
  EXPECT_EQ(row.verdicts.raw["strict"], false);
  EXPECT_LT(row.pairs[0].ratio_ci->lo, 0.99);
  EXPECT_GT(row.pairs[0].ratio_ci->hi, 1.07);
}

TEST(Verdicts, TheIntervalIsSeededAndNeedsWholeBlocks) {
  std::mt19937_64 rng(3);
  RowSamples s = noisy_row(rng, 1.0);
  RatioInterval a = ratio_interval(s.baseline[0], s.candidate[0], 6, {}, interval_seed(9, "r", 0));
  RatioInterval b = ratio_interval(s.baseline[0], s.candidate[0], 6, {}, interval_seed(9, "r", 0));
  EXPECT_EQ(a.lo, b.lo);
  EXPECT_EQ(a.hi, b.hi);
  EXPECT_NE(interval_seed(9, "r", 0), interval_seed(9, "r", 1));
  EXPECT_NE(interval_seed(9, "r", 0), interval_seed(9, "s", 0));
  EXPECT_THROW(ratio_interval(s.baseline[0], s.candidate[0], 5, {}, 1), std::invalid_argument);  // 24 % 5 != 0
  RowRecord row = make_row();
  DeriveContext c = protocol_ctx(1);
  c.blocks = 5;
  EXPECT_THROW(derive_row(row, &s, Policy::parse("strict"), c), AuditError);
}

TEST(Verdicts, TheIntervalSpecRoundTripsAndRejectsAnotherMethod) {
  json proto = {{"interval", to_json(IntervalSpec{})}};
  EXPECT_EQ(interval_spec_from_json(proto).resamples, 2000);
  json other = proto;
  other["interval"]["method"] = "t";
  EXPECT_THROW(interval_spec_from_json(other), AuditError);
  other = proto;
  other["interval"]["level"] = 1.5;
  EXPECT_THROW(interval_spec_from_json(other), AuditError);
  EXPECT_THROW(interval_spec_from_json(json::object()), AuditError);
}

namespace {
// Pairs (base, floor); `base` refused the row: its pair has no samples.
RowRecord refused_base_row() {
  RowRecord row = make_row(true, {"base", "floor"});
  row.refused = {{"base", "x stride is not a multiple of 16 bytes"}};
  return row;
}
RowSamples floor_only_samples(double c) {
  RowSamples s = two_pair_samples(c);
  s.baseline[0].clear();
  s.candidate[0].clear();
  return s;
}
Policy accepting(json j) {
  j["accept_refusals"] = {"base"};
  return Policy::from_json(j, "p");
}
}  // namespace

// A baseline's accepted refusal: its pair is not measured and not judged; the other pairs are.
TEST(Verdicts, AnAcceptedRefusalLeavesItsPairUnjudgedAndTheRestJudged) {
  const json by = json::parse(R"({"gates": ["correct"], "by_baseline": {
      "base": {"gates": ["strict"]}, "floor": {"gates": ["limit"], "limit": 0.05}}})");
  RowRecord row = derived(refused_base_row(), floor_only_samples(9.3), accepting(by));
  EXPECT_TRUE(row.verdicts.policy) << row.verdicts.raw.dump();
  EXPECT_FALSE(row.pairs[0].ratio);
  EXPECT_FALSE(row.pairs[0].baseline_stats);
  EXPECT_DOUBLE_EQ(*row.pairs[1].ratio, 9.0 / 9.3);
  EXPECT_EQ(row.verdicts.raw["by_baseline"]["base"]["refused"], json::array({"base"}));
  EXPECT_TRUE(row.verdicts.raw["by_baseline"]["base"]["strict"].is_null());
  EXPECT_EQ(row.verdicts.raw["by_baseline"]["floor"]["limit"], true);
  // What ran is still gated: the floor's limit fails on its own.
  row = derived(refused_base_row(), floor_only_samples(9.6), accepting(by));
  EXPECT_EQ(row.verdicts.failed, std::vector<std::string>{"limit@floor"});
  // Top-level gates over both pairs: the refused one is left out, the floor's pair judged.
  row = derived(refused_base_row(), floor_only_samples(8), accepting(json{{"gates", {"correct", "strict"}}}));
  EXPECT_TRUE(row.verdicts.policy) << row.verdicts.raw.dump();
  EXPECT_EQ(row.verdicts.raw["strict"], true);
  row = derived(refused_base_row(), floor_only_samples(9.3), accepting(json{{"gates", {"correct", "strict"}}}));
  EXPECT_EQ(row.verdicts.failed, std::vector<std::string>{"strict"});  // 9 / 9.3 < 1
  // The candidate is still held to correctness.
  RowRecord bad = refused_base_row();
  bad.correctness[0].result.passed = false;
  bad.disposition = Disposition::incorrect;
  derive_row(bad, nullptr, accepting(by), ctx());
  EXPECT_EQ(bad.verdicts.failed, (std::vector<std::string>{"disposition", "correct", "limit@floor"}));
}

// A policy that does not accept the refusal (a later `gate --policy`) fails the refused pair's
// gates, and only those; a row gate alone (`correct`) passes: everything that ran is correct.
TEST(Verdicts, ARefusalThePolicyDoesNotAcceptFailsThatPairsGates) {
  RowRecord row = derived(refused_base_row(), floor_only_samples(8), Policy::parse("correct"));
  EXPECT_TRUE(row.verdicts.policy) << row.verdicts.raw.dump();
  row = derived(refused_base_row(), floor_only_samples(8), Policy::parse("correct,strict"));
  EXPECT_EQ(row.verdicts.failed, std::vector<std::string>{"strict"});
  EXPECT_EQ(row.verdicts.raw["strict"], false);
  EXPECT_EQ(row.verdicts.raw["refused"], json::array({"base"}));
  row = derived(refused_base_row(), floor_only_samples(9.3), strict_and_floor());
  EXPECT_EQ(row.verdicts.failed, std::vector<std::string>{"strict@base"});
  // The same policy with the acceptance passes.
  row = derived(refused_base_row(), floor_only_samples(9.3), accepting(strict_and_floor().to_json()));
  EXPECT_TRUE(row.verdicts.policy) << row.verdicts.raw.dump();
  // Unaffected rows (no refusal) and policies read as before: no "refused" anywhere.
  row = derived(make_row(true, {"base", "floor"}), two_pair_samples(9.3), accepting(strict_and_floor().to_json()));
  EXPECT_TRUE(row.verdicts.policy);
  EXPECT_FALSE(row.verdicts.raw["by_baseline"]["base"].contains("refused"));
}

TEST(Verdicts, ARefusalKgateCouldNotHaveRecordedIsAnAuditError) {
  const Policy p = accepting(strict_and_floor().to_json());
  // Samples of the refused pair.
  EXPECT_THROW(derived(refused_base_row(), two_pair_samples(9.3), p), AuditError);
  // No samples for a pair that ran.
  RowSamples none = floor_only_samples(9.3);
  none.baseline[1].clear();
  none.candidate[1].clear();
  RowRecord row = make_row(true, {"base", "floor"});
  row.refused = {{"base", "why"}};
  EXPECT_THROW(derived(row, none, p), AuditError);
  // A refused arm that is not a baseline of the row, or whose correctness is recorded.
  row.refused = {{"c", "why"}};
  EXPECT_THROW(derived(row, floor_only_samples(9.3), p), AuditError);
  row = refused_base_row();
  row.correctness.push_back({"base", {}});
  EXPECT_THROW(derived(row, floor_only_samples(9.3), p), AuditError);
}

TEST(Verdicts, TheSummaryCountsARefusedPairAsUnmeasured) {
  const Policy p = accepting(strict_and_floor().to_json());
  RowRecord a = derived(make_row(true, {"base", "floor"}), two_pair_samples(9.3), p);
  RowRecord b = derived(refused_base_row(), floor_only_samples(9.3), p);
  b.id = "refused";
  Summary s = derive_summary({a, b});
  EXPECT_EQ(s.policy_passed, 2);
  EXPECT_EQ(s.by_baseline["base"].measured_rows, 1);
  EXPECT_EQ(s.by_baseline["base"].unmeasured_rows, 1);
  EXPECT_EQ(s.by_baseline["floor"].measured_rows, 2);
}
