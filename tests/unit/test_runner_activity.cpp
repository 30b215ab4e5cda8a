// The runner's activity bookkeeping (A/L/K signatures, consistency across calls, undeclared
// kernels, the parity and fallback gates) through a fake backend that reports activity the way
// the CUPTI timer does. Runs on the CPU.
#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <filesystem>

#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/run/campaign.hpp"
#include "tests/unit/fake_backend.hpp"

using namespace kgate;
namespace fs = std::filesystem;

namespace {

using kgate::testing::add_fake_arm;
using kgate::testing::FakeBackend;
using kgate::testing::FakeBehaviour;

// Each call reports a signature chosen by the arm.
FakeBehaviour activity() {
  FakeBehaviour b;
  b.signature = [](const std::string& arm, int n) {
    Signature sig{1, 1, {"ssu_fast_kernel"}};
    if (arm == "ssu.fake_flaky" && n % 3 == 0)  // every third call also launches a fallback
      sig = Signature{2, 2, {"cutlass_fallback_gemm", "ssu_fast_kernel"}};
    if (arm == "ssu.fake_two") sig = Signature{2, 2, {"ssu_fast_kernel", "ssu_fast_kernel_tail"}};
    // Consistent within each group (12 calls per group), different between the two groups.
    if (arm == "ssu.fake_regroup" && n > 12) sig = Signature{2, 2, {"ssu_fast_kernel", "ssu_fast_kernel_split"}};
    return sig;
  };
  return b;
}

json run_fake(const std::string& cand, const std::string& policy) {
  for (const char* n : {"ssu.fake_ref", "ssu.fake_twin", "ssu.fake_flaky", "ssu.fake_two", "ssu.fake_regroup"})
    add_fake_arm(n);
  auto dir = fresh_temp_dir("kgate_fake_");
  std::string table = (dir / "t.json").string();
  write_file_atomic(table, R"({"table": "t", "family": "ssu", "rows": [
    {"id": "r", "params": {"batch": 1, "nheads": 2, "ngroups": 1, "pool_slots": 2, "state_dtype": "bf16"}}]})");
  RunConfig c;
  c.cases_path = table;
  c.candidate = cand;
  c.baselines = {"ssu.fake_ref"};
  c.out_path = (dir / (cand + ".json")).string();
  c.policy = Policy::parse(policy);
  c.schedule = {2, 2, 3, 1};
  c.quiet = true;
  FakeBackend be(activity());
  run_campaign(c, be);
  EXPECT_TRUE(audit_receipt(c.out_path, std::nullopt).ok());
  json r = json::parse(read_file(c.out_path));
  fs::remove_all(dir);
  return r["body"]["predicate"]["rows"][0];
}

}  // namespace

TEST(RunnerActivity, SameSignatureEveryCallPassesParityAndFallback) {
  json row = run_fake("ssu.fake_twin", "parity,fallback");
  const json& s = row["signatures"]["ssu.fake_twin"];
  EXPECT_EQ(s["A"], 1);
  EXPECT_EQ(s["L"], 1);
  EXPECT_EQ(s["K"], 1);
  EXPECT_EQ(s["consistent"], true);
  EXPECT_TRUE(s["undeclared"].empty());
  EXPECT_EQ(row["verdicts"]["policy"], true);
  EXPECT_EQ(s["calls"], 24);  // 2 groups x 2 blocks x 2 letters x m=3
}

TEST(RunnerActivity, AnArmThatSometimesLaunchesAFallbackIsFlagged) {
  json row = run_fake("ssu.fake_flaky", "parity,fallback");
  const json& s = row["signatures"]["ssu.fake_flaky"];
  EXPECT_EQ(s["consistent"], false);  // the row says the kernel set changed between calls
  EXPECT_EQ(s["undeclared"], json::array({"cutlass_fallback_gemm"}));
  EXPECT_EQ(row["verdicts"]["raw"]["parity"], false);
  EXPECT_EQ(row["verdicts"]["raw"]["fallback"], false);
  EXPECT_EQ(row["verdicts"]["policy"], false);
}

TEST(RunnerActivity, DeclaredNamesMatchAsSubstringsButParityComparesSignatures) {
  json row = run_fake("ssu.fake_two", "parity,fallback");
  const json& s = row["signatures"]["ssu.fake_two"];
  EXPECT_EQ(s["K"], 2);
  EXPECT_TRUE(s["undeclared"].empty());  // "ssu_fast_kernel_tail" contains a declared name
  EXPECT_EQ(row["verdicts"]["raw"]["fallback"], true);
  EXPECT_EQ(row["verdicts"]["raw"]["parity"], false);  // 2/2/2 vs the baseline's 1/1/1
}

TEST(RunnerActivity, ASignatureThatChangesBetweenGroupsFailsParity) {
  // Each group is consistent on its own; only merging across groups shows the change.
  json row = run_fake("ssu.fake_regroup", "parity");
  const json& s = row["signatures"]["ssu.fake_regroup"];
  EXPECT_EQ(s["consistent"], false);
  EXPECT_EQ(s["calls"], 24);
  EXPECT_EQ(row["verdicts"]["raw"]["parity"], false);
}
