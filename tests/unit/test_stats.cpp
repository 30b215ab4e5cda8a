#include <gtest/gtest.h>

#include <cmath>

#include "harness/core/intervals.hpp"
#include "harness/core/stats.hpp"

using namespace kgate;

TEST(Stats, Median) {
  EXPECT_EQ(median({5}), 5);             // n = 1
  EXPECT_EQ(median({3, 1}), 2);          // n = 2: mean of both
  EXPECT_EQ(median({9, 1, 5}), 5);       // odd
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);  // even
  EXPECT_EQ(median({2, 2, 2, 7}), 2);    // ties
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(Stats, QuartilesType7) {
  // numpy.percentile([1,2,3,4], [25, 75]) = [1.75, 3.25]
  SampleSummary s = summarize({4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.iqr, 1.5);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.n, 4u);
  SampleSummary one = summarize({7});
  EXPECT_EQ(one.q1, 7);
  EXPECT_EQ(one.q3, 7);
  EXPECT_EQ(one.iqr, 0);
  // [1..5]: q1 = 2, q3 = 4 exactly.
  SampleSummary five = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(five.q1, 2);
  EXPECT_EQ(five.q3, 4);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Stats, Geomean) {
  EXPECT_DOUBLE_EQ(geomean({2, 8}), 4);
  EXPECT_DOUBLE_EQ(geomean({5}), 5);
  EXPECT_NEAR(geomean({1, 10, 100}), 10, 1e-12);
  EXPECT_THROW(geomean({}), std::invalid_argument);
  EXPECT_THROW(geomean({1, 0}), std::invalid_argument);
  EXPECT_THROW(geomean({1, -2}), std::invalid_argument);
}

TEST(Stats, PairRatioAndDrift) {
  // Baseline 10 in every group; candidate 5, 5, 4 -> pooled medians 10 / 5 = 2.
  PairStats p = pair_stats({{10, 10}, {10, 10}, {10, 10}}, {{5, 5}, {5, 5}, {4, 4}});
  EXPECT_DOUBLE_EQ(p.ratio, 2.0);
  ASSERT_EQ(p.group_ratios.size(), 3u);
  EXPECT_DOUBLE_EQ(p.group_ratios[2], 2.5);
  EXPECT_DOUBLE_EQ(p.drift, 0.25);  // |2.5 / 2 - 1|
  EXPECT_TRUE(p.groups_agree);
  // One group on the other side of 1: disagreement.
  PairStats q = pair_stats({{10}, {10}}, {{9}, {11}});
  EXPECT_FALSE(q.groups_agree);
  EXPECT_THROW(pair_stats({{1}}, {{1}, {1}}), std::invalid_argument);
  EXPECT_THROW(pair_stats({{1}}, {{0}}), std::invalid_argument);
}

TEST(Intervals, UnionOverlapsGapsNestingDevices) {
  std::vector<Interval> none;
  EXPECT_EQ(union_length(none), 0u);
  std::vector<Interval> a = {{0, 10}, {5, 15}};  // overlap counts once
  EXPECT_EQ(union_length(a), 15u);
  std::vector<Interval> b = {{0, 10}, {20, 30}};  // launch gap excluded
  EXPECT_EQ(union_length(b), 20u);
  EXPECT_EQ(span_length(b), 30u);
  std::vector<Interval> c = {{0, 100}, {10, 20}, {30, 40}};  // nested
  EXPECT_EQ(union_length(c), 100u);
  std::vector<Interval> d = {{0, 10, 0}, {5, 12, 1}, {50, 60, 1}, {55, 58, 0}};  // two devices, one clock
  EXPECT_EQ(union_length(d), 22u);
  std::vector<Interval> e = {{7, 7}, {3, 5}, {5, 9}};  // empty interval, touching intervals
  EXPECT_EQ(union_length(e), 6u);
}
