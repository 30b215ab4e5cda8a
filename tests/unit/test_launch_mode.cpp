// protocol.launch (run --launch direct|graph) as the CPU side sees it: the CPU backend records
// "direct" and refuses "graph"; audit refuses a launch mode kgate could not have written, even in a
// receipt whose sidecar and seal were remade around the edit; gate --against-tree reads a receipt
// without the field, or with one the tree does not know, as a stale protocol.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/tree_check.hpp"
#include "harness/run/campaign.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;
namespace fs = std::filesystem;

namespace {

class LaunchModeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_temp_dir("kgate_launch_");
    write_file_atomic((dir_ / "t.json").string(), R"({"table": "t", "family": "ag_gemm", "rows": [
      {"id": "a", "params": {"world_size": 1, "m": 8, "n": 16, "k": 32}}]})");
    const RunConfig c{.cases_path = (dir_ / "t.json").string(),
                      .candidate = "ag_gemm.cpu_eigen",
                      .baselines = {"ag_gemm.cpu_blocked"},
                      .out_path = (dir_ / "r.json").string(),
                      .policy = Policy::parse("correct"),
                      .schedule = {2, 2, 1, 5},
                      .warmup_min_us = 0,
                      .warmup_min_calls = 1,
                      .quiet = true};
    auto b = make_cpu_backend();
    run_campaign(c, *b);
    receipt_ = json::parse(read_file(c.out_path));
    sidecar_ = json::parse(read_file(sidecar_path_of(c.out_path, receipt_)));
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // The receipt with `edit` applied to its predicate, then everything a forger can remake remade:
  // the sidecar's facts digest, the sidecar's digest (samples.sha256 and its subject) and the seal.
  // Written to a folder of its own with its sidecar; the audit's problems.
  static std::vector<std::string> forged_audit(const std::function<void(json&)>& edit) {
    const fs::path d = dir_ / ("forged" + std::to_string(++forgeries_));
    fs::create_directories(d);
    json body = receipt_["body"];
    json& pred = body["predicate"];
    edit(pred);
    json sidecar = sidecar_;
    sidecar["facts_sha256"] = facts_digest(pred);
    const std::string sc_bytes = sidecar.dump();
    const std::string sc_name = pred["samples"]["path"];
    write_file_atomic((d / sc_name).string(), sc_bytes);
    const std::string sc_sha = sha256_hex(sc_bytes);
    for (auto& s : body["subject"])
      if (s["name"] == sc_name) s["digest"]["sha256"] = sc_sha;
    pred["samples"]["sha256"] = sc_sha;
    write_file_atomic((d / "r.json").string(), receipt_bytes(seal_receipt(body, std::nullopt)));
    return audit_receipt((d / "r.json").string(), std::nullopt).problems;
  }
  static bool names_launch(const std::vector<std::string>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const std::string& p) { return p.find("protocol.launch") != std::string::npos; });
  }

  static inline fs::path dir_;
  static inline json receipt_, sidecar_;
  static inline int forgeries_ = 0;
};

TEST_F(LaunchModeTest, TheCpuBackendRecordsDirectLaunches) {
  EXPECT_EQ(receipt_["body"]["predicate"]["protocol"]["launch"], "direct");
  EXPECT_TRUE(audit_receipt((dir_ / "r.json").string(), std::nullopt).ok());
}

TEST_F(LaunchModeTest, TheCpuBackendRefusesGraphLaunches) {
  g_launch_mode = "graph";
  EXPECT_THROW(make_cpu_backend(), InputError);
  g_launch_mode = "direct";
  EXPECT_NO_THROW(make_cpu_backend());
}

TEST_F(LaunchModeTest, AuditRefusesALaunchModeKgateCouldNotHaveWritten) {
  // The remade forgery is complete: with the recorded mode (or none, a receipt from before the
  // field) it audits, so what fails below fails on the launch mode alone.
  EXPECT_TRUE(forged_audit([](json&) {}).empty());
  EXPECT_TRUE(forged_audit([](json& p) { p["protocol"].erase("launch"); }).empty());
  for (const json& bad : {json("graph"), json("replay"), json(""), json(1), json(nullptr)}) {
    const auto problems = forged_audit([&](json& p) { p["protocol"]["launch"] = bad; });
    EXPECT_TRUE(names_launch(problems)) << "launch " << bad.dump() << " on the CPU backend was not refused";
  }
  // graph is a mode kgate has, on a backend with CUDA graphs only.
  const auto on_cpu = forged_audit([](json& p) { p["protocol"]["launch"] = "graph"; });
  ASSERT_FALSE(on_cpu.empty());
  EXPECT_NE(on_cpu.front().find("launches every call directly"), std::string::npos) << on_cpu.front();
}

TEST(LaunchModeTree, AReceiptWithoutTheTreesLaunchFactIsAStaleProtocol) {
  auto stale = [](const json& protocol) {
    std::vector<std::string> lines;
    for (const StaleItem& s : stale_against_tree({{"predicate", {{"protocol", protocol}}}}, "."))
      if (s.kind == StaleItem::Kind::protocol) lines.push_back(s.line);
    return lines;
  };
  const json v = kProtocolSchemaVersion;
  EXPECT_TRUE(stale({{"schema_version", v}, {"launch", "direct"}}).empty());
  EXPECT_TRUE(stale({{"schema_version", v}, {"launch", "graph"}}).empty());
  const auto absent = stale({{"schema_version", v}});
  ASSERT_EQ(absent.size(), 1u);
  EXPECT_EQ(absent[0], "STALE protocol: launch absent in the receipt, tree direct or graph");
  const auto unknown = stale({{"schema_version", v}, {"launch", "replay"}});
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0], "STALE protocol: launch \"replay\" in the receipt, tree direct or graph");
}

}  // namespace
