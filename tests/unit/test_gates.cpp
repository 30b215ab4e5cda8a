#include <gtest/gtest.h>

#include "harness/core/errors.hpp"
#include "harness/core/policy.hpp"

using namespace kgate;

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
Policy strict_and_floor() {
  return Policy::from_json(json::parse(R"({"gates": ["correct"], "by_baseline": {
      "base": {"gates": ["strict"]},
      "floor": {"gates": ["limit"], "limit": 0.05, "limit_by_tag": {"band=b9": 0.5}}}})"), "p");
}
}  // namespace

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
