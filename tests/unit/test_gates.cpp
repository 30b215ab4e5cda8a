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

namespace {
Policy strict_and_floor() {
  return Policy::from_json(json::parse(R"({"gates": ["correct"], "by_baseline": {
      "base": {"gates": ["strict"]},
      "floor": {"gates": ["limit"], "limit": 0.05, "limit_by_tag": {"band=b9": 0.5}}}})"),
                           "p");
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
