// The rank-thread runner (RankThreadsExecutor) through the campaign, on fake backends: world size 1
// gives the single-process path's rows and identity; at world size 2 the slower rank decides each
// sample and both ranks' samples are journaled; a rank's failure fails its unit, named, and ends
// that unit on every rank at once (the ranks' agreements); a hung rank fails its unit within the
// bound and every later one, and the campaign still ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <thread>

#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/run/campaign.hpp"
#include "harness/run/ranks.hpp"
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
  std::function<std::unique_ptr<Executor>(std::unique_ptr<Executor>)> ranks_of(
      std::vector<std::shared_ptr<Executor>> more, std::chrono::milliseconds timeout = 10s) {
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
  RankOwn(const RunConfig& cfg, FakeBehaviour b)
      : plan(make_plan(cfg, "fake")), backend(std::move(b)), inner(plan, backend) {}
  UnitResult run_unit(const UnitSpec& s) override { return inner.run_unit(s); }
  void drop_row(const std::string& id) override { inner.drop_row(id); }
  Plan plan;
  FakeBackend backend;
  InProcessExecutor inner;
};

// A rank that never answers within the bound (it sleeps, then returns nothing).
struct Hangs final : Executor {
  UnitResult run_unit(const UnitSpec& s) override {
    std::this_thread::sleep_for(10s);
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

// World size 1 through the rank-process path (the file exchange, one rank) seals the rows, arms and
// statistics of the rank-thread runner at world size 1 (and so of the single-process path).
TEST_F(RankRunnerTest, WorldOneThroughTheProcessPathIsTheThreadRunner) {
  FakeBackend be;
  cfg_.out_path = (dir_ / "threads.json").string();
  cfg_.wrap_executor = ranks_of({});
  run_campaign(cfg_, be);
  FakeBackend be2;
  cfg_.out_path = (dir_ / "processes.json").string();
  const std::string units = (dir_ / "units").string();
  cfg_.wrap_executor = [units](std::unique_ptr<Executor> local) {
    return std::make_unique<RankProcessExecutor>(std::move(local),
                                                 std::make_shared<ranks::FileExchange>(units, "job", 0, 1, 10s));
  };
  run_campaign(cfg_, be2);
  const json a = receipt("threads.json"), b = receipt("processes.json");
  EXPECT_EQ(a["arms"], b["arms"]);
  EXPECT_EQ(a["cases"], b["cases"]);
  EXPECT_EQ(a["backend"], b["backend"]);
  ASSERT_EQ(a["rows"].size(), b["rows"].size());
  for (size_t i = 0; i < a["rows"].size(); ++i) {
    const json &ra = a["rows"][i], &rb = b["rows"][i];
    EXPECT_EQ(ra["id"], rb["id"]);
    EXPECT_EQ(ra["params"], rb["params"]);
    EXPECT_EQ(ra["disposition"], rb["disposition"]);
    EXPECT_EQ(ra["pairs"][0]["candidate_stats"], rb["pairs"][0]["candidate_stats"]) << ra["id"];
    EXPECT_EQ(ra["pairs"][0]["baseline_stats"], rb["pairs"][0]["baseline_stats"]) << ra["id"];
  }
  size_t left = 0;  // each unit's file is removed once the next unit completes: one is left
  for (const auto& e : fs::directory_iterator(units)) left += e.is_regular_file();
  EXPECT_EQ(left, 1u);
}

// Two rank processes (threads here, each its own campaign, executor and exchange) over one unit
// directory: both seal the same merged rows, and the slower rank decides each sample.
TEST_F(RankRunnerTest, TwoRankProcessesSealTheSameMergedRows) {
  const std::string units = (dir_ / "units").string();
  auto run_rank = [&](int rank, double scale) {
    FakeBehaviour b;
    b.us = [scale](const std::string& arm, int) { return (arm == "ssu.fake_ref" ? 10.0 : 5.0) * scale; };
    FakeBackend be(b);
    RunConfig c = cfg_;
    c.out_path = (dir_ / ("p" + std::to_string(rank) + ".json")).string();
    c.quiet = true;
    c.wrap_executor = [units, rank](std::unique_ptr<Executor> local) {
      return std::make_unique<RankProcessExecutor>(std::move(local),
                                                   std::make_shared<ranks::FileExchange>(units, "job2", rank, 2, 20s));
    };
    run_campaign(c, be);
  };
  std::thread other([&] { run_rank(1, 3.0); });
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{other};
  run_rank(0, 1.0);
  // Rank 1 may still be sealing its receipt after the last exchange.
  other.join();
  const json a = receipt("p0.json"), b = receipt("p1.json");
  ASSERT_EQ(a["rows"].size(), 3u);
  for (size_t i = 0; i < a["rows"].size(); ++i) {
    EXPECT_EQ(a["rows"][i]["pairs"], b["rows"][i]["pairs"]) << i;
    EXPECT_DOUBLE_EQ(a["rows"][i]["pairs"][0]["candidate_stats"]["median_us"].get<double>(), 15.0);
    EXPECT_DOUBLE_EQ(a["rows"][i]["pairs"][0]["baseline_stats"]["median_us"].get<double>(), 30.0);
  }
}

// A rank process whose peer never answers fails the unit within the exchange's bound, names the
// rank, and every later unit fails the same way; the campaign ends.
TEST_F(RankRunnerTest, AMissingRankProcessFailsWithinTheBound) {
  FakeBackend be;
  cfg_.out_path = (dir_ / "alone.json").string();
  const std::string units = (dir_ / "units").string();
  cfg_.wrap_executor = [units](std::unique_ptr<Executor> local) {
    return std::make_unique<RankProcessExecutor>(std::move(local),
                                                 std::make_shared<ranks::FileExchange>(units, "job3", 0, 2, 150ms));
  };
  const auto t0 = std::chrono::steady_clock::now();
  run_campaign(cfg_, be);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);  // 3 units x 150 ms, not 20 s each
  const json p = receipt("alone.json");
  ASSERT_EQ(p["rows"].size(), 3u);
  EXPECT_NE(p["rows"][0]["error"].get<std::string>().find("rank(s) 1 gave no result for unit 0"), std::string::npos)
      << p["rows"][0]["error"];
  for (const auto& row : p["rows"])
    EXPECT_NE(row["error"].get<std::string>().find("every later unit fails"), std::string::npos) << row["id"];
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

// Two ranks whose calls overlap on the one clock: the row records the cross-device union of each
// arm's calls (rank 0 busy [1, 11) us, rank 1 [6, 16) and [18, 21) us of each call: 18 us), which
// the audit recomputes from the sidecar; a single rank's receipt has no such field.
TEST_F(RankRunnerTest, TheCrossDeviceUnionOfTheRanksCalls) {
  FakeBehaviour r0, r1;
  const uint64_t base = 1764650000123456789ull;  // CUPTI's absolute ns: far above 2^53
  r0.intervals = [base](const std::string&, int call) {
    const uint64_t t = base + static_cast<uint64_t>(call) * 100000;
    return std::vector<std::pair<uint64_t, uint64_t>>{{t + 1000, t + 11000}};
  };
  r1.intervals = [base](const std::string&, int call) {
    const uint64_t t = base + static_cast<uint64_t>(call) * 100000;
    return std::vector<std::pair<uint64_t, uint64_t>>{{t + 6000, t + 16000}, {t + 18000, t + 21000}};
  };
  FakeBackend rank0(r0);
  cfg_.out_path = (dir_ / "union.json").string();
  cfg_.wrap_executor = ranks_of({std::make_shared<RankOwn>(cfg_, r1)});
  run_campaign(cfg_, rank0);
  const json p = receipt("union.json");
  for (const auto& row : p["rows"]) {
    ASSERT_TRUE(row.contains("cross_device_us")) << row["id"];
    for (const char* arm : {"ssu.fake_ref", "ssu.fake_cand"}) {
      EXPECT_DOUBLE_EQ(row["cross_device_us"][arm]["median"].get<double>(), 18.0) << row["id"] << " " << arm;
      EXPECT_EQ(row["cross_device_us"][arm]["n"].get<int64_t>(),
                row["pairs"][0]["candidate_stats"]["n"].get<int64_t>());
    }
  }
  FakeBackend alone(r0);
  cfg_.out_path = (dir_ / "alone.json").string();
  cfg_.wrap_executor = nullptr;
  run_campaign(cfg_, alone);
  const json single = receipt("alone.json");  // kept alive: a range-for over a temporary's member dangles
  for (const auto& row : single["rows"]) EXPECT_FALSE(row.contains("cross_device_us")) << row["id"];
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
  // Within the 100 ms bound and the campaign's own work (about 2 s under ASan on a loaded 2-core
  // machine), not the hung rank's 10 s per unit.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  const json p = receipt("hang.json");
  ASSERT_EQ(p["rows"].size(), 3u);
  EXPECT_NE(p["rows"][0]["error"].get<std::string>().find("rank 1 returned no result"), std::string::npos)
      << p["rows"][0]["error"];
  for (const auto& row : p["rows"])
    EXPECT_NE(row["error"].get<std::string>().find("the runner stops"), std::string::npos) << row["id"];
}

// How rank 1 of a two-rank job fails, and what the campaign must then seal: `rows` fail with
// `disposition` and an error naming rank 1's cause (`why`, when given), every other row passes.
struct RankFailure {
  std::string name;
  std::function<void(FakeBehaviour&)> break_rank1;
  std::set<std::string> rows;
  std::string disposition, why;
};
const std::vector<RankFailure>& rank_failures() {
  static const std::vector<RankFailure> cases = {
      {"prepare throws",
       [](FakeBehaviour& b) {
         b.on_prepare = [](const CaseRow& r) {
           if (r.id == "r1") throw std::runtime_error("device 1 lost");
         };
       },
       {"r1"},
       "failed",
       "rank 1: device 1 lost"},
      {"the context refuses the row",
       [](FakeBehaviour& b) {
         b.on_prepare = [](const CaseRow& r) {
           if (r.id == "r1") throw InputError("shard too large");
         };
       },
       {"r1"},
       "not_supported",
       "rank 1: shard too large"},
      {"rank 1's GPU is of another architecture",
       [](FakeBehaviour& b) { b.arch = "other"; },
       {"r0", "r1", "r2"},
       "not_supported",
       ""},
      {"an arm is wrong on rank 1's shard",
       [](FakeBehaviour& b) {
         b.passes = [](const std::string& arm, const std::string& row) {
           return !(row == "r1" && arm == "ssu.fake_cand");
         };
       },
       {"r1"},
       "incorrect",
       ""},
      {"the reference throws in an arm's check",
       [](FakeBehaviour& b) {
         b.passes = [](const std::string& arm, const std::string& row) -> bool {
           if (row == "r1" && arm == "ssu.fake_cand") throw DeviceError("reference out of memory");
           return true;
         };
       },
       {"r1"},
       "failed",
       "rank 1: reference out of memory"},
      {"a sample fails midway",
       [](FakeBehaviour& b) {
         b.after_call = [](const std::string& arm, const std::string& row, int call, int) {
           if (row == "r1" && arm == "ssu.fake_cand" && call == 3) throw DeviceError("CUPTI dropped records");
         };
       },
       {"r1"},
       "failed",
       "rank 1: CUPTI dropped records"},
      {"the unit's last sample fails",
       [](FakeBehaviour& b) {  // per unit 2 arms x 2 blocks x 2 letters x m 2: the 16th call ends the first unit
         b.after_call = [](const std::string&, const std::string& row, int, int row_call) {
           if (row == "r1" && row_call == 16) throw DeviceError("CUPTI dropped records");
         };
       },
       {"r1"},
       "failed",
       "rank 1: CUPTI dropped records"},
  };
  return cases;
}

void expect_sealed(const json& p, const RankFailure& c) {
  ASSERT_EQ(p["rows"].size(), 3u);
  for (const auto& row : p["rows"]) {
    if (!c.rows.count(row["id"].get<std::string>())) {
      EXPECT_EQ(row["disposition"], "passed") << row.dump();
      continue;
    }
    EXPECT_EQ(row["disposition"], c.disposition) << row.dump();
    const std::string why = row.contains("error") && row["error"].is_string() ? row["error"].get<std::string>() : "";
    EXPECT_EQ(why.find("abandoned"), std::string::npos) << why;
    EXPECT_EQ(why.find("fake job"), std::string::npos) << why;
    if (!c.why.empty()) EXPECT_NE(why.find(c.why), std::string::npos) << row.dump();
  }
}

// Ranks whose backends agree, and whose arms make collectives, the way NCCL ranks on one
// communicator do (every call waits for every rank, and the ranks' calls must match): when one
// rank fails a unit, it says so at the others' next agreement, so every rank stops that unit at
// once, with every rank at the same point of its collectives, and the row carries the failing
// rank's cause; no rank waits out a bound, the runner does not stop, and the next rows pass.
// Without the agreements, rank 0 would sit in its next collective until the fake job's bound, and
// the row's error would be rank 0's.
TEST_F(RankRunnerTest, ARanksFailureEndsTheUnitOnEveryRankAtOnce) {
  for (const RankFailure& c : rank_failures()) {
    SCOPED_TRACE(c.name);
    auto job = std::make_shared<kgate::testing::FakeJob>(2, 5s);
    FakeBehaviour good;
    good.job = job;
    FakeBehaviour bad = good;
    c.break_rank1(bad);
    FakeBackend rank0(good);
    cfg_.out_path = (dir_ / "collective.json").string();
    fs::remove(cfg_.out_path);
    fs::remove(cfg_.out_path + ".samples.json");
    cfg_.wrap_executor = ranks_of({std::make_shared<RankOwn>(cfg_, bad)}, 20s);
    const auto t0 = std::chrono::steady_clock::now();
    run_campaign(cfg_, rank0);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);  // no rank waited out the job's bound
    expect_sealed(receipt("collective.json"), c);
  }
}

// The same failures through rank processes (threads here, each its own campaign over one unit
// directory, each rank's executor made by rank_process_executor, as `kgate run --rendezvous` makes it):
// both ranks seal the failing row with rank 1's cause and pass the others.
TEST_F(RankRunnerTest, ARanksFailureEndsTheUnitOnEveryRankProcess) {
  int n = 0;
  for (const RankFailure& c : rank_failures()) {
    SCOPED_TRACE(c.name);
    auto job = std::make_shared<kgate::testing::FakeJob>(2, 5s);
    const std::string units = (dir_ / ("units" + std::to_string(n))).string(), key = "job" + std::to_string(n++);
    auto run_rank = [&](int rank) {
      FakeBehaviour b;
      b.job = job;
      if (rank == 1) c.break_rank1(b);
      FakeBackend be(b);
      RunConfig rc = cfg_;
      rc.out_path = (dir_ / ("p" + std::to_string(rank) + ".json")).string();
      fs::remove(rc.out_path);
      fs::remove(rc.out_path + ".samples.json");
      rc.wrap_executor = [units, key, rank](std::unique_ptr<Executor> local) {
        return rank_process_executor(std::move(local), std::make_shared<ranks::FileExchange>(units, key, rank, 2, 20s),
                                     20s);
      };
      run_campaign(rc, be);
    };
    std::thread other([&] { run_rank(1); });
    run_rank(0);
    other.join();
    expect_sealed(receipt("p0.json"), c);
    expect_sealed(receipt("p1.json"), c);
  }
}

// The merge names the failing rank's cause, not that of a rank that stopped because of it; where
// no rank gave a cause, the abandonment itself fails the unit.
TEST(MergeRankUnits, TheCauseIsTheFailingRanksNotTheAbandonedOnes) {
  UnitSpec spec;
  spec.row_id = "r";
  UnitResult gave_up, failed, wrong;
  gave_up.row_id = failed.row_id = wrong.row_id = "r";
  gave_up.error = RankAbandoned().what();
  gave_up.abandoned = true;
  failed.error = "device 1 lost";
  wrong.check = RowCheck{};
  wrong.check->disposition = Disposition::incorrect;
  wrong.check->error = "out differs";
  EXPECT_EQ(merge_rank_units(spec, {gave_up, failed}).error, "rank 1: device 1 lost");
  const UnitResult m = merge_rank_units(spec, {gave_up, wrong});
  EXPECT_EQ(m.error, "");
  ASSERT_TRUE(m.check);
  EXPECT_EQ(m.check->disposition, Disposition::incorrect);
  EXPECT_EQ(m.check->error, "rank 1: out differs");
  const UnitResult none = merge_rank_units(spec, {gave_up, gave_up});
  EXPECT_EQ(none.error.rfind("rank 0: abandoned", 0), 0u) << none.error;
  EXPECT_TRUE(none.abandoned);
  // A rank process's own result comes through a one-rank runner first: not renamed "rank 0", and
  // still abandoned when the job's merge sees it.
  const UnitResult own = merge_rank_units(spec, {gave_up}), cause = merge_rank_units(spec, {failed});
  EXPECT_TRUE(own.abandoned);
  EXPECT_EQ(cause.error, "device 1 lost");
  EXPECT_EQ(merge_rank_units(spec, {own, cause}).error, "rank 1: device 1 lost");
  EXPECT_TRUE(unit_result_from_json(to_json(own)).abandoned);  // the exchange carries it
  EXPECT_FALSE(to_json(cause).contains("abandoned"));          // and adds nothing to a journal's units
}
