// --isolate's bounds on a unit's child: a child past --unit-timeout is killed with everything it
// started and its row fails with the reason while the campaign goes on; a killed campaign leaves
// no child running. The hang is a fake backend whose row preparation sleeps, on the CPU.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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

namespace {

// Whether process `pid` still runs: present in /proc and not a zombie (a killed process that
// nobody has reaped yet is no longer running).
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] != 'Z';
}

// Waits up to `limit` for `pid` to stop running.
bool stops_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (running(pid) && std::chrono::steady_clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return !running(pid);
}

// The pid written to `path` by a hanging unit, once it is there.
pid_t pid_in(const std::string& path, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (; std::chrono::steady_clock::now() < end; std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
    std::ifstream f(path);
    pid_t pid = 0;
    if (f >> pid && pid > 0) return pid;
  }
  return 0;
}

void write_pid(const std::string& path, pid_t pid) {
  const std::string tmp = path + ".tmp";
  std::ofstream(tmp) << pid << "\n";
  fs::rename(tmp, path);
}

class IsolateTimeout : public ::testing::Test {
 protected:
  void SetUp() override {
    add_fake_arm("ssu.fake_ref");
    add_fake_arm("ssu.fake_cand");
    dir_ = fresh_temp_dir("kgate_isolate_");
    write_file_atomic(p("t.json"), kgate::testing::kFakeTable);
    cfg_ = kgate::testing::fake_run_config(p("t.json"), "correct");
    cfg_.out_path = p("r.json");
    cfg_.isolate = true;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  // A backend whose preparation of row r1 hangs: it starts a grandchild that hangs too (as a
  // unit's helper process would), writes both pids, and sleeps far past any test's patience.
  BackendFactory hanging_on_r1() {
    const std::string child_pid = p("child.pid"), grandchild_pid = p("grandchild.pid");
    return [child_pid, grandchild_pid] {
      FakeBehaviour b;
      b.on_prepare = [child_pid, grandchild_pid](const CaseRow& row) {
        if (row.id != "r1") return;
        const pid_t g = ::fork();
        if (g == 0) {
          ::sleep(300);
          ::_exit(0);
        }
        write_pid(grandchild_pid, g);
        write_pid(child_pid, ::getpid());
        ::sleep(300);
      };
      return std::make_unique<FakeBackend>(b);
    };
  }
  fs::path dir_;
  RunConfig cfg_;
};

}  // namespace

TEST_F(IsolateTimeout, AUnitPastItsTimeoutIsKilledAndItsRowFailsWithTheReason) {
  cfg_.unit_timeout_s = 1;
  const auto t0 = std::chrono::steady_clock::now();
  run_campaign(cfg_, hanging_on_r1());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60));
  ASSERT_TRUE(audit_receipt(cfg_.out_path, std::nullopt).ok());
  const json pred = json::parse(read_file(cfg_.out_path))["body"]["predicate"];
  json rows = json::object();
  for (const auto& r : pred["rows"]) rows[r["id"].get<std::string>()] = r;
  EXPECT_EQ(rows["r1"]["disposition"], "failed");
  EXPECT_NE(rows["r1"]["error"].get<std::string>().find("ran past --unit-timeout 1 s and was killed"),
            std::string::npos)
      << rows["r1"]["error"];
  EXPECT_EQ(rows["r0"]["disposition"], "passed");  // the campaign went on past the hung row
  EXPECT_EQ(rows["r2"]["disposition"], "passed");
  // The child and what it started are gone (killed as a process group).
  const pid_t child = pid_in(p("child.pid")), grandchild = pid_in(p("grandchild.pid"));
  ASSERT_GT(child, 0);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(stops_within(child, std::chrono::seconds(5)));
  EXPECT_TRUE(stops_within(grandchild, std::chrono::seconds(5)));
  if (running(grandchild)) ::kill(grandchild, SIGKILL);
}

TEST_F(IsolateTimeout, AKilledCampaignLeavesNoChildRunning) {
  // The campaign runs in a process of its own, which the test kills while a unit's child hangs.
  const pid_t campaign = ::fork();
  ASSERT_GE(campaign, 0);
  if (campaign == 0) {
    try {
      run_campaign(cfg_, hanging_on_r1());
    } catch (...) {
    }
    ::_exit(0);
  }
  const pid_t child = pid_in(p("child.pid"));
  ASSERT_GT(child, 0);
  ::kill(campaign, SIGKILL);
  ::waitpid(campaign, nullptr, 0);
  EXPECT_TRUE(stops_within(child, std::chrono::seconds(5))) << "the unit's child outlived its campaign";
  if (running(child)) ::kill(child, SIGKILL);
  const pid_t grandchild = pid_in(p("grandchild.pid"));
  if (grandchild > 0 && running(grandchild)) ::kill(grandchild, SIGKILL);
}

TEST_F(IsolateTimeout, TheRunsStartAndPhaseTimesAreSealed) {
  run_campaign(cfg_, [] { return std::make_unique<FakeBackend>(); });  // isolated: the children's phases
  ASSERT_TRUE(audit_receipt(cfg_.out_path, std::nullopt).ok());
  json run = json::parse(read_file(cfg_.out_path))["body"]["predicate"]["run"];
  ASSERT_TRUE(run["started_utc"].is_string()) << run;
  EXPECT_EQ(run["started_utc"].get<std::string>().size(), std::string("2026-01-02T03:04:05Z").size()) << run;
  EXPECT_LE(run["started_utc"].get<std::string>(), run["finished_utc"].get<std::string>());
  for (const char* phase : {"prepare", "check", "warmup", "timing"}) {
    ASSERT_TRUE(run["phases_s"][phase].is_number()) << phase << " " << run;
    EXPECT_GE(run["phases_s"][phase].get<double>(), 0) << phase;
  }
  // Every unit's samples came back through a child: their time is counted.
  EXPECT_GT(run["phases_s"]["timing"].get<double>(), 0) << run;
  // In-process too.
  cfg_.isolate = false;
  FakeBackend be;
  fs::remove(cfg_.out_path);
  RunOutcome o = run_campaign(cfg_, be);
  run = json::parse(read_file(cfg_.out_path))["body"]["predicate"]["run"];
  EXPECT_DOUBLE_EQ(run["phases_s"]["timing"].get<double>(), o.phases.timing_s);
  EXPECT_GT(o.phases.timing_s, 0);
}
