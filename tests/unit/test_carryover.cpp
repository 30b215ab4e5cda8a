// `kgate carryover`: a receipt's samples split by what ran just before each. The fake backend's
// arms run longer right after another arm's call (check, warm-up or timed), so every sample
// the split puts after another arm must carry the penalty and every repeat must not: that holds
// only if the order rebuilt from the protocol is the order the executor ran.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "harness/report/carryover.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/run/campaign.hpp"
#include "tests/unit/fake_backend.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;
using kgate::testing::add_fake_arm;
using kgate::testing::FakeBackend;
using kgate::testing::FakeBehaviour;
using kgate::testing::refuse_r1;
namespace fs = std::filesystem;

namespace {

double own_time(const std::string& arm) {
  return arm == "ssu.fake_cand" ? 8.0 : arm == "ssu.fake_ref" ? 10.0 : arm == "ssu.fake_ref2" ? 12.0 : 9.0;
}
constexpr double kPenalty = 3.0;

class CarryoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    add_fake_arm("ssu.fake_ref");
    add_fake_arm("ssu.fake_cand");
    add_fake_arm("ssu.fake_ref2");
    add_fake_arm("ssu.fake_picky", {"fake"}, &refuse_r1);
    dir_ = fresh_temp_dir("kgate_carryover_");
    write_file_atomic((dir_ / "t.json").string(), kgate::testing::kFakeTable);
    cfg_ = kgate::testing::fake_run_config((dir_ / "t.json").string(), "correct");
    cfg_.out_path = (dir_ / "r.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Runs the campaign with the carryover behaviour; returns the split of the audited receipt.
  // isolate: each unit in a child process (`kgate run --isolate`), which runs the same order.
  CarryoverResult run_and_split(bool isolate = false) {
    auto last = std::make_shared<double>(0);
    FakeBehaviour b;
    b.us_after = [last](const std::string& arm, int, const std::string& previous) {
      return *last = own_time(arm) + (previous == arm ? 0.0 : kPenalty);
    };
    // Every arm's time in two kernels: the main one carries the penalty, the other is constant.
    b.activity = [last](const std::string&, int) {
      return std::map<std::string, double>{{"main_kernel", *last - 1.0}, {"tail_kernel", 1.0}};
    };
    cfg_.isolate = isolate;
    if (isolate) {
      run_campaign(cfg_, [b] { return std::make_unique<FakeBackend>(b); });
    } else {
      FakeBackend be(b);
      run_campaign(cfg_, be);
    }
    const AuditResult a = audit_receipt(cfg_.out_path, std::nullopt);
    EXPECT_TRUE(a.ok());
    return carryover(a.receipt, a.samples, cfg_.out_path);
  }
  fs::path dir_;
  RunConfig cfg_;
};

void expect_split(const CarryoverSide& s, double own, int64_t samples, const std::string& what) {
  EXPECT_GT(s.n_after_other, 0) << what;
  EXPECT_GT(s.n_repeat, 0) << what;
  EXPECT_EQ(s.n_after_other + s.n_repeat, samples) << what;
  ASSERT_TRUE(s.after_other_range && s.repeat_range) << what;
  EXPECT_DOUBLE_EQ(s.after_other_range->first, own + kPenalty) << what << ": a repeat counted as after another arm";
  EXPECT_DOUBLE_EQ(s.after_other_range->second, own + kPenalty) << what;
  EXPECT_DOUBLE_EQ(s.repeat_range->first, own) << what;
  EXPECT_DOUBLE_EQ(s.repeat_range->second, own) << what << ": a sample after another arm counted as a repeat";
  ASSERT_TRUE(s.carryover()) << what;
  EXPECT_DOUBLE_EQ(*s.carryover(), (own + kPenalty) / own) << what;
}
// Both arms' two kernels: main_kernel carries the arm's split (its time less 1), tail_kernel none.
void expect_activities(const CarryoverPair& p, int64_t base_n, int64_t cand_n, const std::string& what) {
  ASSERT_EQ(p.activities.size(), 4u) << what << ": two kernels of each arm";
  for (const auto& a : p.activities) {
    const bool base = a.arm == p.baseline;
    const std::string w = what + " " + a.arm + " " + a.activity;
    if (a.activity == "main_kernel") {
      expect_split(a.split, own_time(a.arm) - 1.0, base ? base_n : cand_n, w);
    } else {
      ASSERT_TRUE(a.split.carryover()) << w;
      EXPECT_DOUBLE_EQ(*a.split.carryover(), 1.0) << w;
    }
  }
}

}  // namespace

TEST(CarryoverOrder, AUnitsFirstSampleFollowsTheLastArmWarmedAndEachPairFollowsTheOneBefore) {
  ScheduleConfig s{1, 2, 1, 5};
  const std::string letters = block_letters(s, 0, 0);
  ASSERT_EQ(letters.size(), 8u);
  const UnitOrder o = unit_order(s, 0, 0, "c", {"b1", "b2"});
  ASSERT_EQ(o.arms.size(), 16u);
  ASSERT_EQ(o.after.size(), 16u);
  EXPECT_EQ(o.after[0], "b2") << "the warm-up runs the candidate, then the baselines in order";
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(o.arms[i], letters[i] == 'A' ? "b1" : "c") << i;
    EXPECT_EQ(o.arms[8 + i], letters[i] == 'A' ? "b2" : "c") << i;
  }
  for (size_t i = 1; i < 16; ++i) EXPECT_EQ(o.after[i], o.arms[i - 1]) << i;
  EXPECT_TRUE(unit_order(s, 0, 0, "c", {}).arms.empty());
}

// Three seeds (each its own letters), one of them with every unit in a child process.
TEST_F(CarryoverTest, EverySampleAfterAnotherArmCarriesItsPenaltyAndNoRepeatDoes) {
  for (uint64_t seed : {1u, 2u, 20261129u}) {
    cfg_.schedule = {3, 4, 2, seed};
    cfg_.out_path = (dir_ / ("r" + std::to_string(seed) + ".json")).string();
    const CarryoverResult c = run_and_split(seed == 2);
    ASSERT_EQ(c.pairs.size(), 3u) << seed;
    const int64_t per_arm = 3 * 4 * 2 * 2;  // groups x blocks x 2 letters an arm a block (ABBA) x m
    for (const auto& p : c.pairs) {
      const std::string what = p.row + " seed " + std::to_string(seed);
      expect_split(p.cand, 8.0, per_arm, what + " candidate");
      expect_split(p.base, 10.0, per_arm, what + " baseline");
      EXPECT_DOUBLE_EQ(*p.ratio_after_other, 13.0 / 11.0) << what;
      EXPECT_DOUBLE_EQ(*p.ratio_repeat, 10.0 / 8.0) << what;
      expect_activities(p, per_arm, per_arm, what);
    }
    ASSERT_EQ(c.by_baseline.count("ssu.fake_ref"), 1u);
    EXPECT_EQ(c.by_baseline.at("ssu.fake_ref").rows, 3);
    EXPECT_DOUBLE_EQ(c.by_baseline.at("ssu.fake_ref").cand_carryover, 11.0 / 8.0);
  }
}

// Two baselines: the second pair's first sample follows the first pair's last, and the candidate's
// activity series (one per call over both pairs) is split per pair.
TEST_F(CarryoverTest, EachPairOfARunOfSeveralBaselinesIsSplitOnItsOwnCalls) {
  cfg_.baselines = {"ssu.fake_ref", "ssu.fake_ref2"};
  cfg_.schedule = {2, 2, 1, 11};
  const CarryoverResult c = run_and_split();
  ASSERT_EQ(c.pairs.size(), 6u);
  const int64_t per_arm = 2 * 2 * 2;  // groups x blocks x 2 letters an arm (m 1)
  for (const auto& p : c.pairs) {
    const std::string what = p.row + " vs " + p.baseline;
    expect_split(p.cand, 8.0, per_arm, what + " candidate");
    expect_split(p.base, own_time(p.baseline), per_arm, what + " baseline");
    expect_activities(p, per_arm, per_arm, what);
  }
  const std::string md = carryover_markdown(c);
  EXPECT_NE(md.find("| `ssu.fake_ref2` | 3 |"), std::string::npos) << md;
  EXPECT_NE(md.find("`main_kernel`"), std::string::npos);
  const json j = carryover_json(c);
  EXPECT_EQ(j["schema"], "kgate.carryover/1");
  EXPECT_EQ(j["pairs"].size(), 6u);
}

TEST_F(CarryoverTest, AReceiptWhoseSamplesDoNotFitItsScheduleIsRefused) {
  cfg_.schedule = {2, 2, 1, 3};
  run_and_split();
  AuditResult a = audit_receipt(cfg_.out_path, std::nullopt);
  ASSERT_TRUE(a.ok());
  json bad = a.receipt;
  bad["body"]["predicate"]["protocol"]["blocks"] = 4;  // twice the letters the samples were timed with
  EXPECT_THROW(carryover(bad, a.samples, cfg_.out_path), AuditError);
  bad["body"]["predicate"]["protocol"].erase("seed");
  EXPECT_THROW(carryover(bad, a.samples, cfg_.out_path), AuditError);
  json no_samples = a.samples;
  no_samples["rows"].erase("r0");  // a passed row without samples
  EXPECT_THROW(carryover(a.receipt, no_samples, cfg_.out_path), AuditError);
}

// A run without a warm-up: what ran before a unit's first sample is unknown (the row's check, another unit's last
// call), so that sample is in neither subset; every other sample is still split right.
TEST_F(CarryoverTest, WithoutAWarmUpEachUnitsFirstSampleIsInNeitherSubset) {
  cfg_.warmup_min_calls = 0;
  cfg_.warmup_min_us = 0;
  cfg_.schedule = {3, 2, 2, 9};
  const CarryoverResult c = run_and_split();
  EXPECT_FALSE(c.warmed_up);
  const int64_t per_arm = 3 * 2 * 2 * 2;
  for (const auto& p : c.pairs) {
    const int64_t base_n = p.base.n_after_other + p.base.n_repeat, cand_n = p.cand.n_after_other + p.cand.n_repeat;
    EXPECT_EQ(base_n + cand_n, 2 * per_arm - 3) << p.row << ": one sample a unit (3 groups) left out";
    expect_split(p.cand, 8.0, cand_n, p.row + " candidate");
    expect_split(p.base, 10.0, base_n, p.row + " baseline");
    expect_activities(p, base_n, cand_n, p.row);
  }
  EXPECT_NE(carryover_markdown(c).find("no warm-up"), std::string::npos);
}

// --rows and a refused row: the order uses each row's index in the run's (filtered) table, which is its place in the
// receipt, not-supported rows included.
TEST_F(CarryoverTest, ARowsIndexIsItsPlaceInTheFilteredTableRefusedRowsIncluded) {
  cfg_.candidate = "ssu.fake_picky";  // refuses r1
  for (const char* filter : {"r1,r2", "*"}) {
    cfg_.rows_filter = filter;
    cfg_.schedule = {2, 2, 1, 13};
    cfg_.out_path = (dir_ / (std::string(filter) == "*" ? "all.json" : "some.json")).string();
    const CarryoverResult c = run_and_split();
    ASSERT_EQ(c.pairs.size(), std::string(filter) == "*" ? 2u : 1u) << filter;
    for (const auto& p : c.pairs) {
      EXPECT_NE(p.row, "r1");
      expect_split(p.cand, own_time("ssu.fake_picky"), 2 * 2 * 2, p.row + " " + filter);
      expect_split(p.base, 10.0, 2 * 2 * 2, p.row + " " + filter);
    }
  }
}

// Samples of 0 pass audit (an empty kernel on a coarse timer): no ratio or carryover is made of a 0 median, so no
// geomean meets one.
TEST(CarryoverOrder, AZeroMedianGivesNoRatio) {
  const CarryoverSide zero_after{1, 1, 0.0, 2.0, std::nullopt, std::nullopt};
  const CarryoverSide zero_repeat{1, 1, 2.0, 0.0, std::nullopt, std::nullopt};
  EXPECT_FALSE(zero_after.carryover());
  EXPECT_FALSE(zero_repeat.carryover());
  CarryoverResult c;
  c.baselines = {"b"};
  CarryoverPair p;
  p.row = "r";
  p.baseline = "b";
  p.cand = zero_after;
  c.pairs.push_back(p);
  EXPECT_NE(carryover_markdown(c).find("| - |"), std::string::npos);
}
