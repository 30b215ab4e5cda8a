// preflight_run: every flag and file of a run checked before any work, side-effect free, with
// the nearest names for a mistyped arm or table; the no-overwrite rule; write_file_atomic
// refuses non-regular targets.
#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <sys/stat.h>

#include <cmath>
#include <filesystem>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/run/preflight.hpp"

using namespace kgate;
namespace fs = std::filesystem;

namespace {

class Preflight : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_temp_dir("kgate_preflight_");
    write_file_atomic(p("t.json"), R"({"table": "t", "family": "ag_gemm", "rows": [
      {"id": "a", "params": {"world_size": 1, "m": 8, "n": 16, "k": 32}}]})");
    c_.cases_path = p("t.json");
    c_.candidate = "ag_gemm.cpu_eigen";
    c_.baselines = {"ag_gemm.cpu_blocked"};
    c_.out_path = p("out/r.json");
    c_.policy = Policy::parse("correct");
    c_.schedule = {2, 2, 2, 5};
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  std::string error(const RunConfig& c) const {
    return error_of([&] { preflight_run(c); });
  }
  // The InputError's message (one line), or "" with a failure when none is thrown.
  template <class F>
  static std::string error_of(F f) {
    try {
      f();
    } catch (const InputError& e) {
      std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
      return m;
    }
    ADD_FAILURE() << "no InputError: preflight accepted the config";
    return "";
  }
  fs::path dir_;
  RunConfig c_;
};

}  // namespace

TEST_F(Preflight, AcceptsAGoodConfigAndWritesNothing) {
  preflight_run(c_);
  preflight_run(c_);                   // idempotent
  EXPECT_FALSE(fs::exists(p("out")));  // the out directory is not created by the preflight
}

TEST_F(Preflight, ScheduleAndWarmupBounds) {
  auto with = [&](auto edit) {
    RunConfig c = c_;
    edit(c);
    return error(c);
  };
  EXPECT_NE(with([](RunConfig& c) { c.warmup_min_us = std::nan(""); }).find("--warmup-us"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.warmup_min_us = INFINITY; }).find("--warmup-us"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.warmup_min_us = -1; }).find("--warmup-us"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.warmup_min_us = 2e9; }).find("--warmup-us"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.warmup_min_calls = -1; }).find("--warmup-calls"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.warmup_min_calls = 1000001; }).find("--warmup-calls"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.schedule.groups = 2147483647; }).find("--groups"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.schedule.groups = 0; }).find("--groups"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.schedule.blocks = 1002; }).find("--blocks"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.schedule.blocks = 5; }).find("--blocks"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.schedule.m = 10001; }).find("--m"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) { c.schedule = {1000, 1000, 10000, 1}; }).find("samples per arm"), std::string::npos);
  EXPECT_NE(with([](RunConfig& c) {
              c.policy.limit = std::nan("");
              c.policy.gates = {"limit"};
            }).find("--policy"),
            std::string::npos);
  RunConfig edge = c_;
  edge.warmup_min_us = 0;
  edge.warmup_min_calls = 0;
  edge.schedule = {1000, 2, 1, 1};
  preflight_run(edge);
}

TEST_F(Preflight, Paths) {
  RunConfig c = c_;
  c.cases_path = p("none.json");
  EXPECT_NE(error(c).find("--cases"), std::string::npos);
  c = c_;
  c.cases_path = dir_.string();
  EXPECT_NE(error(c).find("not a regular file"), std::string::npos);
  c = c_;
  c.out_path = dir_.string();
  EXPECT_NE(error(c).find("is a directory"), std::string::npos);
  c.out_path = "/dev/null";  // checked only: the preflight writes nothing
  EXPECT_NE(error(c).find("not a regular file"), std::string::npos);
  c.out_path = p("t.json/sub/r.json");  // under a regular file: cannot be created
  EXPECT_NE(error(c).find("is not a directory"), std::string::npos);
  c.out_path = p(std::string(5000, 'o'));
  EXPECT_NE(error(c).find("--out: path of"), std::string::npos);
  c = c_;
  fs::create_directories(p("out/r.json.journal"));  // the journal's name is a directory
  EXPECT_NE(error(c).find("journal"), std::string::npos);
}

TEST_F(Preflight, SignKey) {
  RunConfig c = c_;
  c.sign_key = p("missing.key");
  EXPECT_NE(error(c).find("--sign"), std::string::npos);
  write_file_atomic(p("bad.key"), "not a key\n");
  c.sign_key = p("bad.key");
  EXPECT_NE(error(c).find("not an Ed25519 private key"), std::string::npos);
  ed25519_keygen(p("k.key"), p("k.pub"));
  c.sign_key = p("k.pub");  // a public key is not a private key
  EXPECT_NE(error(c).find("not an Ed25519 private key"), std::string::npos);
  c.sign_key = p("k.key");
  preflight_run(c);
}

// What the campaign starts from: the plan for the named backend (arms, units, the filtered table)
// and the signing key, loaded; no backend named, the table only.
TEST_F(Preflight, HandsOverThePlanAndTheKeyItChecked) {
  write_file_atomic(p("t.json"), R"({"table": "t", "family": "ag_gemm", "rows": [
      {"id": "a", "params": {"world_size": 1, "m": 8, "n": 16, "k": 32}},
      {"id": "b", "params": {"world_size": 1, "m": 16, "n": 16, "k": 32}}]})");
  RunConfig c = c_;
  c.rows_filter = "b";
  ed25519_keygen(p("k.key"), p("k.pub"));
  c.sign_key = p("k.key");
  const PreflightedRun run = preflight_run(c, "cpu");
  EXPECT_EQ(run.backend, "cpu");
  ASSERT_EQ(run.plan.table.rows.size(), 1u);
  EXPECT_EQ(run.plan.table.rows[0].id, "b");
  ASSERT_EQ(run.plan.arms.size(), 2u);
  EXPECT_EQ(run.plan.arms[0].role, "candidate");
  EXPECT_EQ(run.plan.arms[1].name, "ag_gemm.cpu_blocked");
  EXPECT_EQ(run.plan.units.size(), 2u);  // one row, two groups
  ASSERT_TRUE(run.sign_key.has_value());
  EXPECT_EQ(run.sign_key->public_pem(), read_file(p("k.pub")));
  // The plan for another backend is checked against it, from the preflighted table.
  fs::remove(p("t.json"));
  std::string m = error_of([&] { plan_for_backend(run, "cuda"); });
  EXPECT_NE(m.find("a cpu implementation, but this run uses the cuda backend"), std::string::npos) << m;
  EXPECT_EQ(plan_for_backend(run, "cpu").units.size(), 2u);
}

TEST_F(Preflight, NoBackendNamedLeavesTheArmsToTheCampaign) {
  const PreflightedRun run = preflight_run(c_);
  EXPECT_EQ(run.backend, "");
  EXPECT_TRUE(run.plan.arms.empty());
  EXPECT_EQ(run.plan.table.rows.size(), 1u);
  EXPECT_FALSE(run.sign_key.has_value());
  EXPECT_EQ(plan_for_backend(run, "cpu").arms.size(), 2u);
}

// A table the caller already read (to name the receipt) is not read again.
TEST_F(Preflight, UsesATableTheCallerRead) {
  CaseTable t = load_case_table(c_.cases_path);
  fs::remove(c_.cases_path);
  write_file_atomic(c_.cases_path, "not a table");  // still a readable file: only its bytes changed
  const PreflightedRun run = preflight_run(c_, "cpu", t);
  EXPECT_EQ(run.plan.table.sha256, t.sha256);
  EXPECT_NE(error(c_), "");  // read by the preflight itself, it fails
}

TEST_F(Preflight, TableProblemsAndRowFilters) {
  RunConfig c = c_;
  c.rows_filter = "zzz";
  EXPECT_NE(error(c).find("matches no row"), std::string::npos);
  write_file_atomic(p("t.json"), std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_NE(error(c_).find("nested deeper than 64 levels"), std::string::npos);
}

TEST_F(Preflight, UnknownArmsNameTheFlagAndTheNearestArm) {
  RunConfig c = c_;
  c.candidate = "ag_gemm.cpu_eigne";
  std::string m = error(c);
  EXPECT_EQ(m.rfind("--candidate: unknown implementation 'ag_gemm.cpu_eigne'; did you mean 'ag_gemm.cpu_eigen'?", 0),
            0u)
      << m;
  c = c_;
  c.baselines = {"ag_gemm.cpu_blockd"};
  m = error(c);
  EXPECT_NE(m.find("--baseline: unknown implementation 'ag_gemm.cpu_blockd'; did you mean 'ag_gemm.cpu_blocked'?"),
            std::string::npos)
      << m;
}

TEST_F(Preflight, ArmsAreCheckedAgainstTheNamedBackend) {
  preflight_run(c_, "cpu");
  std::string m = error_of([&] { preflight_run(c_, "cuda"); });
  EXPECT_NE(m.find("--candidate ag_gemm.cpu_eigen: a cpu implementation, but this run uses the cuda backend"),
            std::string::npos)
      << m;
  RunConfig c = c_;
  c.baselines = {"ssu.cpu_scalar"};
  m = error_of([&] { preflight_run(c, "cpu"); });
  EXPECT_NE(m.find("--baseline ssu.cpu_scalar: family 'ssu'"), std::string::npos) << m;
  c.baselines = {"ag_gemm.cpu_eigen"};
  m = error_of([&] { preflight_run(c, "cpu"); });
  EXPECT_NE(m.find("arm named twice"), std::string::npos) << m;
}

TEST_F(Preflight, ActivityGatesAndExportArmsAreRefusedOnTheCpuBackend) {
  // parity and fallback read the kernels a call launches, which the CPU backend never records:
  // refused before any work instead of failing every row after all of it.
  RunConfig c = c_;
  c.policy = Policy::parse("correct,parity");
  std::string m = error_of([&] { preflight_run(c, "cpu"); });
  EXPECT_NE(m.find("--policy: gate 'parity' judges the kernels a call launches, which only the cuda backend records"),
            std::string::npos)
      << m;
  c.policy = Policy::from_json(
      json{{"gates", {"correct"}}, {"by_baseline", {{"ag_gemm.cpu_blocked", {{"gates", {"fallback"}}}}}}}, "p");
  m = error_of([&] { preflight_run(c, "cpu"); });
  EXPECT_NE(m.find("--policy: by_baseline.'ag_gemm.cpu_blocked': gate 'fallback'"), std::string::npos) << m;
  // An export arm is refused by name before its library is opened (this one does not exist:
  // opening it would say "no such file" instead).
  c = c_;
  c.candidate = "export:" + p("absent.so") + ":arm";
  m = error_of([&] { preflight_run(c, "cpu"); });
  EXPECT_NE(m.find("--candidate 'export:"), std::string::npos) << m;
  EXPECT_NE(m.find("runs on the cuda backend, but this run uses the cpu backend (the library was not opened"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("no such file"), std::string::npos) << m;
}

TEST_F(Preflight, UnitTimeoutNeedsIsolateAndABound) {
  RunConfig c = c_;
  c.unit_timeout_s = 5;
  EXPECT_NE(error(c).find("--unit-timeout: needs --isolate"), std::string::npos);
  c.isolate = true;
  preflight_run(c);
  for (double bad : {-1.0, 86401.0, std::nan("")}) {
    c.unit_timeout_s = bad;
    EXPECT_NE(error(c).find("--unit-timeout: must be a number of seconds in (0, 86400]"), std::string::npos) << bad;
  }
}

TEST_F(Preflight, AMissingTableNamesTheNearestTables) {
  const std::string cases = p("cases");
  fs::create_directories(p("cases/cpu"));
  fs::copy_file(p("t.json"), p("cases/cpu/ssu.json"));
  std::string m = error_of([&] { check_cases_file(p("cases/cpu/ssu.jsn"), cases, "--cases"); });
  EXPECT_NE(m.find("ssu.jsn: no such file; did you mean '"), std::string::npos) << m;
  EXPECT_NE(m.find("cases/cpu/ssu.json'?"), std::string::npos) << m;
  // A directory that does not exist: the tables under the cases dir still answer.
  m = error_of([&] { check_cases_file(p("elsewhere/ssu.json"), cases, "--cases"); });
  EXPECT_NE(m.find("did you mean '"), std::string::npos) << m;
  m = error_of([&] { check_cases_file(p("cases/cpu/nothing_close_at_all.json"), cases, "--cases"); });
  EXPECT_EQ(m.find("did you mean"), std::string::npos) << m;
  check_cases_file(p("cases/cpu/ssu.json"), cases, "--cases");  // present: fine
  m = error_of([&] { check_cases_file(p("cases"), cases, "--cases"); });
  EXPECT_NE(m.find("not a regular file"), std::string::npos) << m;
}

TEST_F(Preflight, AnExistingReceiptIsNotOverwrittenWithoutForce) {
  check_not_overwriting(p("out/r.json"), false, false, "--out");  // nothing there
  fs::create_directories(p("out"));
  write_file_atomic(p("out/r.json"), "{}");
  std::string m = error_of([&] { check_not_overwriting(p("out/r.json"), false, false, "--out"); });
  EXPECT_NE(m.find("r.json: a receipt exists there; pass --force to overwrite it"), std::string::npos) << m;
  check_not_overwriting(p("out/r.json"), true, false, "--out");  // --force
  check_not_overwriting(p("out/r.json"), false, true, "--out");  // --resume continues its journal
}

TEST(DefaultReceiptName, TableArmsAndCommit) {
  const std::string commit = "f583b0a0e3822ac44e3ea4c8fa17c7a9b25ad4ab";
  EXPECT_EQ(default_receipt_name("ag_gemm_cpu", "ag_gemm.cpu_eigen", {"ag_gemm.cpu_blocked"}, commit),
            "ag_gemm_cpu.ag_gemm.cpu_eigen.vs.ag_gemm.cpu_blocked.f583b0a.json");
  EXPECT_EQ(default_receipt_name("ssu", "ssu.fast", {"ssu.baseline", "ssu.floor"}, commit + "-dirty"),
            "ssu.ssu.fast.vs.ssu.baseline+ssu.floor.f583b0a.json");
  EXPECT_EQ(default_receipt_name("ssu", "ssu.fast", {"ssu.baseline"}, "unknown"),
            "ssu.ssu.fast.vs.ssu.baseline.nogit.json");
  EXPECT_EQ(default_receipt_name("ssu", "ssu.fast", {"ssu.baseline"}, ""), "ssu.ssu.fast.vs.ssu.baseline.nogit.json");
  EXPECT_EQ(default_receipt_name("t", "export:/x/lib y.so:fast", {"b"}, commit),
            "t.export__x_lib_y.so_fast.vs.b.f583b0a.json");
}

TEST(FileIo, WriteFileAtomicRefusesNonRegularTargets) {
  auto dir = fresh_temp_dir("kgate_fileio_");
  std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_THROW(write_file_atomic(fifo, "x"), InputError);
  EXPECT_TRUE(fs::is_fifo(fifo));  // not replaced by a regular file
  EXPECT_THROW(write_file_atomic(dir.string(), "x"), InputError);
  // Not /dev/null itself: on a binary with the bug (as root) that would replace the machine's /dev/null.
  write_file_atomic((dir / "f").string(), "x");
  EXPECT_THROW(write_file_atomic((dir / "f" / "g").string(), "x"), InputError);  // parent is a file
  fs::remove_all(dir);
}
