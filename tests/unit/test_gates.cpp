#include <gtest/gtest.h>

#include "harness/core/errors.hpp"
#include "harness/core/gates.hpp"

using namespace kgate;

namespace {

json make_row(double base_us, double cand_us, bool correct = true) {
  json row = {{"id", "r"}, {"tags", {{"band", "b1-b8"}}}, {"disposition", correct ? "passed" : "incorrect"},
              {"correctness", json::array({{{"arm", "c"}, {"passed", correct}}})},
              {"pairs", json::array({{{"baseline", "b"}, {"candidate", "c"}}})}, {"signatures", nullptr}};
  return row;
}
json samples(double b, double c) {
  return {{"pairs", json::array({{{"baseline", {{b, b}, {b, b}}}, {"candidate", {{c, c}, {c, c}}}}})}};
}

}  // namespace

TEST(Gates, PolicyParsing) {
  Policy p = Policy::parse("correct,strict,limit(0.045),drift(0.02)");
  EXPECT_EQ(p.gates, (std::vector<std::string>{"correct", "strict", "limit", "drift"}));
  EXPECT_DOUBLE_EQ(*p.limit, 0.045);
  EXPECT_DOUBLE_EQ(*p.drift, 0.02);
  EXPECT_THROW(Policy::parse("fast"), InputError);
  EXPECT_THROW(Policy::parse("limit(x)"), InputError);
  EXPECT_THROW(Policy::parse("strict(1)"), InputError);
  EXPECT_THROW(Policy::from_json(json{{"gates", {"limit"}}}, "p"), InputError);  // limit without a value
  Policy back = Policy::from_json(p.to_json(), "roundtrip");
  EXPECT_EQ(back.to_json(), p.to_json());
}

TEST(Gates, StrictTieFailsAndLimitIsInclusive) {
  Policy p = Policy::parse("correct,strict,limit(0.05)");
  json row = make_row(10, 10);
  derive_row(row, samples(10, 10), p);
  EXPECT_EQ(row["verdicts"]["raw"]["strict"], false);  // tie
  EXPECT_EQ(row["verdicts"]["raw"]["limit"], true);
  EXPECT_EQ(row["verdicts"]["policy"], false);
  row = make_row(10, 10.5);
  derive_row(row, samples(10, 10.5), p);
  EXPECT_EQ(row["verdicts"]["raw"]["limit"], true);  // exactly 1.05x: inclusive
  row = make_row(10, 10.6);
  derive_row(row, samples(10, 10.6), p);
  EXPECT_EQ(row["verdicts"]["raw"]["limit"], false);
  row = make_row(10, 8);
  derive_row(row, samples(10, 8), p);
  EXPECT_EQ(row["verdicts"]["policy"], true);
  EXPECT_DOUBLE_EQ(row["pairs"][0]["ratio"].get<double>(), 1.25);
}

TEST(Gates, LimitByTagOverridesPolicyLimit) {
  Policy p = Policy::from_json(json{{"gates", {"limit"}}, {"limit", 0.05}, {"limit_by_tag", {{"band=b1-b8", 0.5}}}}, "p");
  json row = make_row(10, 14);
  derive_row(row, samples(10, 14), p);
  EXPECT_EQ(row["verdicts"]["raw"]["limit_value"], 0.5);
  EXPECT_EQ(row["verdicts"]["policy"], true);
}

TEST(Gates, IncorrectRowFailsAndStaysMeasuredAsNull) {
  Policy p = Policy::parse("correct");
  json row = make_row(10, 5, false);
  derive_row(row, nullptr, p);
  EXPECT_EQ(row["verdicts"]["raw"]["correct"], false);
  EXPECT_TRUE(row["pairs"][0]["ratio"].is_null());
  EXPECT_EQ(row["verdicts"]["policy"], false);
  json s = derive_summary(json::array({row}));
  EXPECT_EQ(s["rows"], 1);
  EXPECT_EQ(s["policy_failed"], 1);
  EXPECT_EQ(s["by_baseline"]["b"]["unmeasured_rows"], 1);
}

TEST(Gates, ARowThatFailedAfterItsCorrectnessCheckFailsEveryPolicy) {
  json row = make_row(10, 5);
  row["disposition"] = "failed";  // e.g. a fault during timing, after every arm checked correct
  derive_row(row, nullptr, Policy::parse("correct"));
  EXPECT_EQ(row["verdicts"]["raw"]["correct"], true);
  EXPECT_EQ(row["verdicts"]["policy"], false);
  EXPECT_EQ(row["verdicts"]["failed"], json::array({"disposition"}));
}

TEST(Gates, DriftAndActivityGates) {
  Policy p = Policy::parse("drift(0.02),parity,fallback");
  json row = make_row(10, 5);
  json smp = {{"pairs", json::array({{{"baseline", {{10.0}, {10.0}, {10.0}}}, {"candidate", {{5.0}, {5.0}, {4.0}}}}})}};
  derive_row(row, smp, p);
  EXPECT_EQ(row["verdicts"]["raw"]["drift"], false);  // 2.5 / 2 - 1 = 25 %
  EXPECT_TRUE(row["verdicts"]["raw"]["parity"].is_null());  // host timer: no activity records
  EXPECT_EQ(row["verdicts"]["policy"], false);
  EXPECT_EQ(row["verdicts"]["failed"].size(), 3u);
  row = make_row(10, 5);
  row["signatures"] = {{"b", {{"A", 2}, {"L", 2}, {"K", 1}, {"consistent", true}, {"undeclared", json::array()}}},
                       {"c", {{"A", 2}, {"L", 2}, {"K", 1}, {"consistent", true}, {"undeclared", {"cutlass_fallback"}}}}};
  derive_row(row, samples(10, 5), p);
  EXPECT_EQ(row["verdicts"]["raw"]["parity"], true);
  EXPECT_EQ(row["verdicts"]["raw"]["fallback"], false);
}

TEST(Gates, DriftDirectionOnlyCountsOnceResolved) {
  Policy p = Policy::parse("drift(0.02)");
  // A/A: pooled 1.000, groups 0.999 and 1.001 straddle 1: a tie, not a disagreement.
  json row = make_row(10, 10);
  json aa = {{"pairs", json::array({{{"baseline", {{9.99}, {10.01}, {10.0}}}, {"candidate", {{10.0}, {10.0}, {10.0}}}}})}};
  derive_row(row, aa, p);
  EXPECT_FALSE(row["pairs"][0]["groups_agree"].get<bool>());
  EXPECT_EQ(row["verdicts"]["raw"]["drift"], true);
  // Resolved (pooled 1.0201 > 1 + D) and drift 1.98 % <= D, but one group below 1: a real
  // disagreement, so the gate fails on direction alone.
  row = make_row(10, 10);
  json split = {{"pairs", json::array({{{"baseline", {{10.201}, {10.201}, {9.999}}}, {"candidate", {{10.0}, {10.0}, {10.0}}}}})}};
  derive_row(row, split, p);
  EXPECT_LE(row["pairs"][0]["drift"].get<double>(), 0.02);
  EXPECT_EQ(row["verdicts"]["raw"]["drift"], false);
}

#include "harness/core/report.hpp"

TEST(Compare, FlagsRegressionsBeyondThreshold) {
  auto receipt = [](double r1, json r2) {
    json rows = json::array();
    rows.push_back({{"id", "x"}, {"pairs", json::array({{{"baseline", "b"}, {"ratio", r1}, {"drift", 0.01}}})}});
    rows.push_back({{"id", "y"}, {"pairs", json::array({{{"baseline", "b"}, {"ratio", r2}, {"drift", 0.01}}})}});
    return json{{"body", {{"predicate", {{"rows", rows}}}}}};
  };
  CompareResult c = compare_receipts(receipt(1.5, 1.2), receipt(1.4, 1.2), 0.05);
  EXPECT_EQ(c.regressions, 1);  // 1.4 / 1.5 - 1 = -6.7 %
  EXPECT_NEAR(c.rows[0]["change"].get<double>(), 1.4 / 1.5 - 1, 1e-12);
  EXPECT_EQ(compare_receipts(receipt(1.5, 1.2), receipt(1.45, 1.2), 0.05).regressions, 0);
  EXPECT_EQ(compare_receipts(receipt(1.5, 1.2), receipt(1.5, nullptr), 0.05).regressions, 1);  // row lost its ratio
}

namespace {
// A row with two pairs: candidate c against a baseline (12 us) and a floor (9 us).
json two_pair_row(double cand_us) {
  return {{"id", "r"}, {"tags", {{"band", "b1-b8"}}}, {"disposition", "passed"},
          {"correctness", json::array({{{"arm", "c"}, {"passed", true}}})},
          {"pairs", json::array({{{"baseline", "base"}, {"candidate", "c"}}, {{"baseline", "floor"}, {"candidate", "c"}}})},
          {"signatures", nullptr}};
}
json two_pair_samples(double c) {
  return {{"pairs", json::array({{{"baseline", {{12.0, 12.0}}}, {"candidate", {{c, c}}}},
                                 {{"baseline", {{9.0, 9.0}}}, {"candidate", {{c, c}}}}})}};
}
Policy strict_and_floor() {
  return Policy::from_json(json::parse(R"({"gates": ["correct"], "by_baseline": {
      "base": {"gates": ["strict"]},
      "floor": {"gates": ["limit"], "limit": 0.05, "limit_by_tag": {"band=b9": 0.5}}}})"), "p");
}
}  // namespace

TEST(Gates, ByBaselineJudgesEachPairByItsOwnGates) {
  Policy p = strict_and_floor();
  json row = two_pair_row(9.3);  // faster than base (12), within 5 % of the floor (9)
  derive_row(row, two_pair_samples(9.3), p);
  EXPECT_EQ(row["verdicts"]["policy"], true) << row["verdicts"].dump();
  EXPECT_EQ(row["verdicts"]["raw"]["by_baseline"]["base"]["strict"], true);
  EXPECT_EQ(row["verdicts"]["raw"]["by_baseline"]["floor"]["limit"], true);
  // The top-level pair gates judge no pair here: null, and not required.
  EXPECT_TRUE(row["verdicts"]["raw"]["strict"].is_null());
  row = two_pair_row(9.6);  // 1.067x the floor: the floor's limit fails, named with its baseline
  derive_row(row, two_pair_samples(9.6), p);
  EXPECT_EQ(row["verdicts"]["failed"], json::array({"limit@floor"}));
  row = two_pair_row(12.5);  // slower than base as well
  derive_row(row, two_pair_samples(12.5), p);
  EXPECT_EQ(row["verdicts"]["failed"], json::array({"strict@base", "limit@floor"}));
}

TEST(Gates, ByBaselineParsingAndRoundTrip) {
  Policy p = strict_and_floor();
  EXPECT_EQ(Policy::from_json(p.to_json(), "roundtrip").to_json(), p.to_json());
  EXPECT_TRUE(p.to_json().contains("by_baseline"));
  // A policy without per-baseline gates keeps its JSON as before (old receipts re-derive the same).
  EXPECT_FALSE(Policy::parse("correct,strict").to_json().contains("by_baseline"));
  EXPECT_THROW(Policy::from_json(json::parse(R"({"gates": [], "by_baseline": {"b": {"gates": ["correct"]}}})"), "p"),
               InputError);  // a row gate inside a pair policy
  EXPECT_THROW(Policy::from_json(json::parse(R"({"gates": [], "by_baseline": {"b": {"gates": ["limit"]}}})"), "p"),
               InputError);  // limit without a value
  EXPECT_THROW(Policy::from_json(json::parse(R"({"gates": [], "by_baseline": []})"), "p"), InputError);
}
