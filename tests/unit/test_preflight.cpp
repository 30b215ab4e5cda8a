// preflight_run: every flag and file of a run checked before any work, side-effect free;
// write_file_atomic refuses non-regular targets.
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
  // The InputError's message (one line), or "" with a failure when none is thrown.
  std::string error(const RunConfig& c) const {
    try {
      preflight_run(c);
    } catch (const InputError& e) {
      std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_LT(m.size(), 400u) << m.substr(0, 400);
      return m;
    }
    ADD_FAILURE() << "preflight accepted the config";
    return "";
  }
  fs::path dir_;
  RunConfig c_;
};

}  // namespace

TEST_F(Preflight, AcceptsAGoodConfigAndWritesNothing) {
  preflight_run(c_);
  preflight_run(c_);  // idempotent
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
  EXPECT_NE(with([](RunConfig& c) { c.policy.limit = std::nan(""); c.policy.gates = {"limit"}; }).find("--policy"),
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

TEST_F(Preflight, TableProblemsAndRowFilters) {
  RunConfig c = c_;
  c.rows_filter = "zzz";
  EXPECT_NE(error(c).find("matches no row"), std::string::npos);
  write_file_atomic(p("t.json"), std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_NE(error(c_).find("nested deeper than 64 levels"), std::string::npos);
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
