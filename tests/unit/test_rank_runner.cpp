// The rank-thread runner (RankThreadsExecutor) through the campaign, on fake backends: world size 1
// gives the single-process path's rows and identity; at world size 2 the slower rank decides each
// sample and both ranks' samples are journaled; a rank's failure fails its unit, named; a hung
// rank fails its unit within the bound and every later one, and the campaign still ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

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
using namespace std::chrono_literals;

namespace {

class RankRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    add_fake_arm("ssu.fake_ref");
    add_fake_arm("ssu.fake_cand");
    dir_ = fresh_temp_dir("kgate_ranks_");
    write_file_atomic((dir_ / "t.json").string(), kgate::testing::kFakeTable);
    cfg_ = kgate::testing::fake_run_config((dir_ / "t.json").string(), "correct");
  }
  void TearDown() override { fs::remove_all(dir_); }
  json receipt(const std::string& name) {
    const std::string path = (dir_ / name).string();
    EXPECT_TRUE(audit_receipt(path, std::nullopt).ok());
    return json::parse(read_file(path))["body"]["predicate"];
  }
  // The campaign's own in-process executor as rank 0; ranks 1.. on their own executors over `more`.
  std::function<std::unique_ptr<Executor>(std::unique_ptr<Executor>)> ranks_of(std::vector<std::shared_ptr<Executor>> more,
                                                                               std::chrono::milliseconds timeout = 10s) {
    return [more, timeout](std::unique_ptr<Executor> rank0) {
      std::vector<std::shared_ptr<Executor>> all{std::shared_ptr<Executor>(std::move(rank0))};
      all.insert(all.end(), more.begin(), more.end());
      return std::make_unique<RankThreadsExecutor>(all, timeout);
    };
  }
  fs::path dir_;
  RunConfig cfg_;
};

// Rank r's executor: the plan's in-process executor over its own backend, kept alive with it.
struct RankOwn final : Executor {
  RankOwn(const RunConfig& cfg, FakeBehaviour b) : plan(make_plan(cfg, "fake")), backend(std::move(b)), inner(plan, backend) {}
  UnitResult run_unit(const UnitSpec& s) override { return inner.run_unit(s); }
  void drop_row(const std::string& id) override { inner.drop_row(id); }
  Plan plan;
  FakeBackend backend;
  InProcessExecutor inner;
};

// A rank that never answers within the bound (it sleeps, then returns nothing).
struct Hangs final : Executor {
  UnitResult run_unit(const UnitSpec& s) override {
    std::this_thread::sleep_for(3s);
    UnitResult u;
    u.row_id = s.row_id;
    u.group = s.group;
    return u;
  }
};

}  // namespace

TEST_F(RankRunnerTest, WorldOneThroughTheRankRunnerIsTheSingleProcessPath) {
  FakeBackend be;
  cfg_.out_path = (dir_ / "plain.json").string();
  run_campaign(cfg_, be);
  FakeBackend be2;
  cfg_.out_path = (dir_ / "ranked.json").string();
  cfg_.wrap_executor = ranks_of({});
  run_campaign(cfg_, be2);
  const json a = receipt("plain.json"), b = receipt("ranked.json");
  EXPECT_EQ(a["arms"], b["arms"]);
  ASSERT_EQ(a["rows"].size(), b["rows"].size());
  for (size_t i = 0; i < a["rows"].size(); ++i) {
    const json &ra = a["rows"][i], &rb = b["rows"][i];
    EXPECT_EQ(ra["id"], rb["id"]);
    EXPECT_EQ(ra["disposition"], rb["disposition"]);
    EXPECT_EQ(ra["pairs"][0]["candidate_stats"], rb["pairs"][0]["candidate_stats"]) << ra["id"];
    EXPECT_EQ(ra["pairs"][0]["baseline_stats"], rb["pairs"][0]["baseline_stats"]) << ra["id"];
  }
}

TEST_F(RankRunnerTest, AtWorldTwoTheSlowerRankDecidesEverySample) {
  FakeBehaviour slow;
  slow.us = [](const std::string& arm, int) { return arm == "ssu.fake_ref" ? 30.0 : 20.0; };
  FakeBehaviour fast;
  fast.us = [](const std::string& arm, int) { return arm == "ssu.fake_ref" ? 10.0 : 5.0; };
  FakeBackend rank0(fast);
  cfg_.out_path = (dir_ / "w2.json").string();
  cfg_.wrap_executor = ranks_of({std::make_shared<RankOwn>(cfg_, slow)});
  run_campaign(cfg_, rank0);
  const json p = receipt("w2.json");
  ASSERT_EQ(p["rows"].size(), 3u);
  for (const auto& row : p["rows"]) {
    EXPECT_EQ(row["disposition"], "passed") << row["id"];
    EXPECT_DOUBLE_EQ(row["pairs"][0]["candidate_stats"]["median_us"].get<double>(), 20.0) << row["id"];
    EXPECT_DOUBLE_EQ(row["pairs"][0]["baseline_stats"]["median_us"].get<double>(), 30.0) << row["id"];
  }
}

TEST_F(RankRunnerTest, ARanksFailureFailsItsUnitNamingTheRank) {
  FakeBehaviour refuses;
  refuses.on_prepare = [](const CaseRow& r) {
    if (r.id == "r1") throw std::runtime_error("device 1 lost");
  };
  FakeBackend rank0;
  cfg_.out_path = (dir_ / "fail.json").string();
  cfg_.wrap_executor = ranks_of({std::make_shared<RankOwn>(cfg_, refuses)});
  run_campaign(cfg_, rank0);
  const json p = receipt("fail.json");
  for (const auto& row : p["rows"]) {
    if (row["id"] == "r1") {
      EXPECT_NE(row["error"].get<std::string>().find("rank 1: device 1 lost"), std::string::npos) << row["error"];
    } else {
      EXPECT_EQ(row["disposition"], "passed") << row["id"];
    }
  }
}

TEST_F(RankRunnerTest, AHungRankFailsWithinTheBoundAndTheCampaignEnds) {
  FakeBackend rank0;
  cfg_.out_path = (dir_ / "hang.json").string();
  cfg_.wrap_executor = ranks_of({std::make_shared<Hangs>()}, 100ms);
  const auto t0 = std::chrono::steady_clock::now();
  run_campaign(cfg_, rank0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);  // not the hung rank's 3 s per unit
  const json p = receipt("hang.json");
  ASSERT_EQ(p["rows"].size(), 3u);
  EXPECT_NE(p["rows"][0]["error"].get<std::string>().find("rank 1 returned no result"), std::string::npos)
      << p["rows"][0]["error"];
  for (const auto& row : p["rows"])
    EXPECT_NE(row["error"].get<std::string>().find("the runner stops"), std::string::npos) << row["id"];
}
