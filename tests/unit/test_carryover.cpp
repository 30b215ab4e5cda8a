// `kgate carryover`: a receipt's samples split by what ran just before each. The fake backend's
// arms run longer right after another arm's call (check, warm-up or timed), so every sample
// the split puts after another arm must carry the penalty and every repeat must not: that holds
// only if the order rebuilt from the protocol is the order the executor ran.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "harness/core/carryover.hpp"
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
namespace fs = std::filesystem;

namespace {

double own_time(const std::string& arm) { return arm == "ssu.fake_cand" ? 8.0 : arm == "ssu.fake_ref" ? 10.0 : 12.0; }
constexpr double kPenalty = 3.0;

class CarryoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    add_fake_arm("ssu.fake_ref");
    add_fake_arm("ssu.fake_cand");
    add_fake_arm("ssu.fake_ref2");
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
    // The candidate's time in two kernels: the main one carries the penalty, the other is constant.
    b.activity = [last](const std::string& arm, int) {
      if (arm != "ssu.fake_cand") return std::map<std::string, double>{};
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
      ASSERT_EQ(p.activities.size(), 2u) << what << ": the candidate's two kernels; the baseline runs none";
      for (const auto& a : p.activities) {
        EXPECT_EQ(a.arm, "ssu.fake_cand");
        if (a.activity == "main_kernel") expect_split(a.split, 7.0, per_arm, what + " main_kernel");
        else EXPECT_DOUBLE_EQ(*a.split.carryover(), 1.0) << what << " " << a.activity;
      }
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
    for (const auto& a : p.activities)
      if (a.activity == "main_kernel") expect_split(a.split, 7.0, per_arm, what + " main_kernel");
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
  bad["body"]["predicate"]["protocol"].erase("m");
  EXPECT_THROW(carryover(bad, a.samples, cfg_.out_path), AuditError);
}
