// The campaign through its seams: refused rows are recorded and the run goes on, an isolated
// unit that crashes fails its row only, a killed run resumes, and a receipt and its sidecar
// change together. Faults are injected by the test (a fake backend, an executor wrapper, a
// hook between the two writes), never through the environment.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "harness/report/carryover.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/report/report.hpp"
#include "harness/report/report_view.hpp"
#include "harness/run/campaign.hpp"
#include "harness/run/preflight.hpp"
#include "tests/unit/fake_backend.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;
using kgate::testing::add_fake_arm;
using kgate::testing::FakeBackend;
using kgate::testing::FakeBehaviour;
using kgate::testing::refuse_r1;
namespace fs = std::filesystem;

namespace {

class CampaignTest : public ::testing::Test {
 protected:
  void SetUp() override {
    add_fake_arm("ssu.fake_ref");
    add_fake_arm("ssu.fake_cand");
    add_fake_arm("ssu.fake_picky", {"fake"}, &refuse_r1);
    add_fake_arm("ssu.fake_sm100", {"sm_100a"});
    dir_ = fresh_temp_dir("kgate_campaign_");
    write_file_atomic((dir_ / "t.json").string(), kgate::testing::kFakeTable);
    cfg_ = kgate::testing::fake_run_config((dir_ / "t.json").string(), "correct,strict");
    cfg_.out_path = (dir_ / "r.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  json rows_by_id() {
    EXPECT_TRUE(audit_receipt(cfg_.out_path, std::nullopt).ok());
    json out = json::object();
    const json receipt = json::parse(read_file(cfg_.out_path));
    for (const auto& r : receipt["body"]["predicate"]["rows"]) out[r["id"].get<std::string>()] = r;
    return out;
  }
  fs::path dir_;
  RunConfig cfg_;
};

// Stops the campaign after `n` units, the way a kill would (nothing after the throw runs).
struct Killed : std::runtime_error {
  Killed() : std::runtime_error("killed") {}
};
class KillAfter final : public Executor {
 public:
  KillAfter(std::unique_ptr<Executor> inner, int n) : inner_(std::move(inner)), left_(n) {}
  UnitResult run_unit(const UnitSpec& s) override {
    if (left_-- == 0) throw Killed();
    return inner_->run_unit(s);
  }

 private:
  std::unique_ptr<Executor> inner_;
  int left_;
};

}  // namespace

TEST_F(CampaignTest, ARefusedRowIsNotSupportedAndTheRunGoesOn) {
  cfg_.candidate = "ssu.fake_picky";
  FakeBackend be;
  RunOutcome o = run_campaign(cfg_, be);
  json rows = rows_by_id();
  EXPECT_EQ(rows["r1"]["disposition"], "not_supported");
  EXPECT_NE(rows["r1"]["error"].get<std::string>().find("ssu.fake_picky: batch 2 is not a tile multiple"),
            std::string::npos);
  EXPECT_EQ(rows["r0"]["disposition"], "passed");
  EXPECT_EQ(rows["r2"]["disposition"], "passed");
  EXPECT_EQ(o.summary.dispositions["not_supported"], 1);
  EXPECT_EQ(o.summary.policy_failed, 1);  // a refused row stays in the denominator
}

// A refusal only the row's inputs reveal (an export's supports() over the family's C args, asked
// through the row's context before any call): accepted like supports(params) when the policy says
// so, the row not_supported with the arm's reason when it does not.
TEST_F(CampaignTest, ARefusalOfTheRowsInputsIsAcceptedOrNotSupported) {
  cfg_.baselines = {"ssu.fake_ref"};
  FakeBehaviour b;
  b.refusal = [](const std::string& arm, const std::string& row) {
    return arm == "ssu.fake_ref" && row == "r2" ? std::string("x stride not 16-byte aligned") : std::string();
  };
  {
    FakeBackend be(b);
    run_campaign(cfg_, be);
    json rows = rows_by_id();
    EXPECT_EQ(rows["r2"]["disposition"], "not_supported");
    EXPECT_EQ(rows["r2"]["error"], "ssu.fake_ref: x stride not 16-byte aligned");
    EXPECT_EQ(rows["r0"]["disposition"], "passed");
  }
  cfg_.policy = Policy::from_json(json{{"gates", {"correct"}}, {"accept_refusals", {"ssu.fake_ref"}}}, "p");
  cfg_.candidate = "ssu.fake_cand";
  cfg_.baselines = {"ssu.fake_ref", "ssu.fake_picky"};
  fs::remove(cfg_.out_path);
  FakeBackend be(b);
  RunOutcome o = run_campaign(cfg_, be);
  json rows = rows_by_id();
  EXPECT_EQ(rows["r2"]["disposition"], "passed");
  EXPECT_EQ(rows["r2"]["refused"], json({{"ssu.fake_ref", "x stride not 16-byte aligned"}}));
  EXPECT_TRUE(rows["r2"]["pairs"][0]["ratio"].is_null());
  EXPECT_FALSE(rows["r2"]["pairs"][1]["ratio"].is_null());  // the other baseline still timed
  EXPECT_FALSE(rows["r0"].contains("refused"));
}

// A baseline's refusal that the policy accepts: the row goes on without that pair (its reason
// recorded), the candidate and the other baseline are checked, timed and gated, audit agrees,
// and `gate --policy correct` passes the receipt.
TEST_F(CampaignTest, ABaselineRefusalThePolicyAcceptsLeavesOnlyItsPairUnmeasured) {
  cfg_.baselines = {"ssu.fake_picky", "ssu.fake_ref"};
  // Strictly faster than the reference; within 1.5x of the picky arm (the fake times it as the candidate).
  const json policy = json::parse(R"({"gates": ["correct"], "by_baseline": {
      "ssu.fake_ref": {"gates": ["strict"]}, "ssu.fake_picky": {"gates": ["limit"], "limit": 0.5}}})");
  json accepting = policy;
  accepting["accept_refusals"] = {"ssu.fake_picky"};
  cfg_.policy = Policy::from_json(accepting, "p");
  FakeBackend be;
  RunOutcome o = run_campaign(cfg_, be);
  json rows = rows_by_id();
  const json& r1 = rows["r1"];
  EXPECT_EQ(r1["disposition"], "passed");
  EXPECT_EQ(r1["refused"], json({{"ssu.fake_picky", "batch 2 is not a tile multiple"}}));
  EXPECT_TRUE(r1["error"].is_null());
  ASSERT_EQ(r1["correctness"].size(), 2u);  // the candidate and ssu.fake_ref; the refused arm ran nothing
  for (const auto& c : r1["correctness"]) EXPECT_NE(c["arm"], "ssu.fake_picky");
  EXPECT_TRUE(r1["pairs"][0]["ratio"].is_null());
  EXPECT_GT(r1["pairs"][1]["ratio"].get<double>(), 1.0);
  EXPECT_EQ(r1["verdicts"]["policy"], true) << r1["verdicts"].dump();
  EXPECT_FALSE(rows["r0"].contains("refused"));
  EXPECT_FALSE(rows["r0"]["pairs"][0]["ratio"].is_null());
  EXPECT_TRUE(o.policy_passed);
  EXPECT_EQ(o.summary.by_baseline["ssu.fake_picky"].unmeasured_rows, 1);
  EXPECT_EQ(o.summary.by_baseline["ssu.fake_ref"].measured_rows, 3);
  // A later policy: `correct` judges what ran and passes; the same gates without the acceptance
  // fail the refused pair's gate on its row only.
  const AuditResult a = load_audited(cfg_.out_path);
  for (const auto& r : rows_under_policy(a, Policy::parse("correct"))) EXPECT_TRUE(r.verdicts.policy) << r.id;
  for (const auto& r : rows_under_policy(a, Policy::from_json(policy, "p"))) {
    EXPECT_EQ(r.verdicts.policy, r.id != "r1") << r.id;
    if (r.id == "r1") EXPECT_EQ(r.verdicts.failed, std::vector<std::string>{"limit@ssu.fake_picky"});
  }
  // Readers of the receipt: the report names the acceptance; carryover rebuilds the row's order
  // without the refused arm (it was neither warmed nor timed).
  EXPECT_NE(report_markdown(report_view(a.receipt, cfg_.out_path)).find("refusals accepted: ssu.fake_picky"),
            std::string::npos);
  const CarryoverResult co = carryover(a.receipt, a.samples, cfg_.out_path);
  EXPECT_EQ(co.pairs.size(), 5u);  // 3 rows x 2 pairs, less the refused one
  // The same refusal unaccepted: the row is not supported, as before.
  cfg_.policy = Policy::from_json(policy, "p");
  run_campaign(cfg_, be);
  rows = rows_by_id();
  EXPECT_EQ(rows["r1"]["disposition"], "not_supported");
  EXPECT_FALSE(rows["r1"].contains("refused"));
}

TEST_F(CampaignTest, AnAcceptedRefusalOfAnArmNamedByItsBareNameAndIsolatedUnits) {
  add_fake_arm("lib:ssu.fake_picky_export", {"fake"}, &refuse_r1);
  cfg_.baselines = {"ssu.fake_ref", "lib:ssu.fake_picky_export"};
  cfg_.policy = Policy::from_json(json{{"gates", {"correct"}}, {"accept_refusals", {"ssu.fake_picky_export"}}}, "p");
  cfg_.isolate = true;  // every unit in its own process: the refusal is the same in each
  RunOutcome o = run_campaign(cfg_, [] { return std::make_unique<FakeBackend>(); });
  json rows = rows_by_id();
  EXPECT_EQ(rows["r1"]["disposition"], "passed");
  EXPECT_TRUE(rows["r1"]["refused"].contains("lib:ssu.fake_picky_export"));
  EXPECT_FALSE(rows["r1"]["pairs"][0]["ratio"].is_null());
  EXPECT_TRUE(rows["r1"]["pairs"][1]["ratio"].is_null());
  EXPECT_TRUE(o.policy_passed);
  // Accepting the candidate's refusal is refused before any work.
  cfg_.policy = Policy::from_json(json{{"gates", {"correct"}}, {"accept_refusals", {"ssu.fake_cand"}}}, "p");
  EXPECT_THROW(run_campaign(cfg_, [] { return std::make_unique<FakeBackend>(); }), InputError);
}

// The campaign re-reads nothing the preflight read: the table edited and the signing key removed
// after the preflight, the receipt still records the preflighted table and is signed by the key.
TEST_F(CampaignTest, APreflightedRunReadsNeitherTheTableNorTheKeyAgain) {
  const std::string key = (dir_ / "k.key").string(), pub = (dir_ / "k.pub").string();
  ed25519_keygen(key, pub);
  cfg_.sign_key = key;
  const PreflightedRun run = preflight_run(cfg_, "fake");
  const std::string table_sha = sha256_file_hex(cfg_.cases_path);
  write_file_atomic(cfg_.cases_path, "{}");
  fs::remove(key);
  FakeBackend be;
  run_campaign(run, BackendFactory{}, &be);
  EXPECT_TRUE(audit_receipt(cfg_.out_path, pub).ok());
  const json receipt = json::parse(read_file(cfg_.out_path));
  EXPECT_EQ(receipt["body"]["predicate"]["cases"]["sha256"], table_sha);
  EXPECT_EQ(receipt["body"]["predicate"]["rows"].size(), 3u);
}

// A bad flag is refused before the backend is opened and before anything is written.
TEST_F(CampaignTest, ABadConfigIsRefusedBeforeTheBackendOpens) {
  bool opened = false;
  const BackendFactory factory = [&opened] {
    opened = true;
    return std::make_unique<FakeBackend>();
  };
  cfg_.schedule.blocks = 3;
  EXPECT_THROW(run_campaign(cfg_, factory), InputError);
  cfg_.schedule.blocks = 2;
  cfg_.sign_key = (dir_ / "missing.key").string();
  EXPECT_THROW(run_campaign(cfg_, factory), InputError);
  EXPECT_FALSE(opened);
  EXPECT_FALSE(fs::exists(cfg_.out_path));
  EXPECT_FALSE(fs::exists(cfg_.out_path + ".journal"));
}

// A receipt whose recorded policy does not accept a refusal it records was not written by kgate:
// the policy edited, the sidecar's facts digest, the subjects and the seal all redone, audit
// still finds it.
TEST_F(CampaignTest, AForgedAcceptanceFailsAudit) {
  cfg_.baselines = {"ssu.fake_picky", "ssu.fake_ref"};
  cfg_.policy = Policy::from_json(json{{"gates", {"correct"}}, {"accept_refusals", {"ssu.fake_picky"}}}, "p");
  FakeBackend be;
  run_campaign(cfg_, be);
  ASSERT_TRUE(audit_receipt(cfg_.out_path, std::nullopt).ok());
  json r = json::parse(read_file(cfg_.out_path));
  json& pred = r["body"]["predicate"];
  pred["policy"].erase("accept_refusals");
  const std::string sc_path = (dir_ / pred["samples"]["path"].get<std::string>()).string();
  json sc = json::parse(read_file(sc_path));
  sc["facts_sha256"] = facts_digest(pred);
  const std::string sc_bytes = canonicalize(sc) + "\n";
  write_file_atomic(sc_path, sc_bytes);
  pred["samples"]["sha256"] = sha256_hex(sc_bytes);
  for (auto& s : r["body"]["subject"]) {
    if (s["name"] == pred["samples"]["path"]) s["digest"]["sha256"] = sha256_hex(sc_bytes);
    if (s["name"] == kPolicySubject) s["digest"]["sha256"] = sha256_hex(canonicalize(pred["policy"]));
  }
  write_file_atomic(cfg_.out_path, receipt_bytes(seal_receipt(r["body"], std::nullopt)));
  const AuditResult a = audit_receipt(cfg_.out_path, std::nullopt);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.problems[0].find("'ssu.fake_picky' refused the row, but the recorded policy does not accept its refusal"),
            std::string::npos)
      << a.problems[0];
}

TEST_F(CampaignTest, AContextThatRefusesACaseMarksItsRowNotSupported) {
  FakeBehaviour b;
  b.on_prepare = [](const CaseRow& row) {
    if (row.id == "r2") throw InputError("fp32 state needs a pool aligned to 32 bytes");
  };
  FakeBackend be(b);
  run_campaign(cfg_, be);  // an InputError inside a unit no longer ends the campaign
  json rows = rows_by_id();
  EXPECT_EQ(rows["r2"]["disposition"], "not_supported");
  EXPECT_EQ(rows["r2"]["error"], "fp32 state needs a pool aligned to 32 bytes");
  EXPECT_EQ(rows["r0"]["disposition"], "passed");
}

TEST_F(CampaignTest, AnArmBuiltForAnotherArchIsNotSupportedWithTheReason) {
  cfg_.candidate = "ssu.fake_sm100";
  FakeBackend be;
  run_campaign(cfg_, be);
  json rows = rows_by_id();
  for (const char* id : {"r0", "r1", "r2"}) {
    EXPECT_EQ(rows[id]["disposition"], "not_supported");
    EXPECT_EQ(rows[id]["error"], "ssu.fake_sm100: built for sm_100a, this device is fake");
  }
}

TEST_F(CampaignTest, TheChosenConfigReachesTheRow) {
  FakeBackend be;
  run_campaign(cfg_, be);
  json rows = rows_by_id();
  EXPECT_EQ(rows["r0"]["config"]["ssu.fake_cand"], (json{{"arm", "ssu.fake_cand"}, {"tile", 8}}));
}

TEST_F(CampaignTest, AnIsolatedUnitThatCrashesFailsItsRowOnly) {
  FakeBehaviour b;
  b.on_prepare = [](const CaseRow& row) {
    if (row.id == "r1") ::raise(SIGABRT);  // as a fatal error ends the process (ASan leaves SIGABRT alone)
  };
  cfg_.isolate = true;
  run_campaign(cfg_, [b] { return std::make_unique<FakeBackend>(b); });
  json rows = rows_by_id();
  EXPECT_EQ(rows["r1"]["disposition"], "failed");
  EXPECT_NE(rows["r1"]["error"].get<std::string>().find("signal 6"), std::string::npos) << rows["r1"]["error"];
  EXPECT_EQ(rows["r0"]["disposition"], "passed");
  EXPECT_EQ(rows["r2"]["disposition"], "passed");
}

TEST_F(CampaignTest, AKilledRunResumesWithoutLosingOrRepeatingAUnit) {
  FakeBackend be;
  cfg_.wrap_executor = [](std::unique_ptr<Executor> e) { return std::make_unique<KillAfter>(std::move(e), 4); };
  EXPECT_THROW(run_campaign(cfg_, be), Killed);
  ASSERT_TRUE(fs::exists(cfg_.out_path + ".journal"));
  EXPECT_FALSE(fs::exists(cfg_.out_path));
  cfg_.wrap_executor = nullptr;
  cfg_.resume = true;
  run_campaign(cfg_, be);
  json pred = json::parse(read_file(cfg_.out_path))["body"]["predicate"];
  EXPECT_EQ(pred["run"]["resumed_units"], 4);
  json samples = json::parse(read_file(sidecar_path_of(cfg_.out_path, json::parse(read_file(cfg_.out_path)))));
  for (const char* id : {"r0", "r1", "r2"}) {
    const json& p = samples["rows"][id]["pairs"][0];
    ASSERT_EQ(p["baseline"].size(), 2u) << id;                    // both groups, each once
    for (const auto& g : p["baseline"]) EXPECT_EQ(g.size(), 8u);  // 2 blocks x 2 A letters x m=2
  }
  EXPECT_TRUE(rows_by_id()["r2"]["disposition"] == "passed");
}

TEST_F(CampaignTest, TheReceiptAndItsSidecarChangeTogether) {
  FakeBackend be;
  run_campaign(cfg_, be);
  const std::string first = read_file(cfg_.out_path);
  const std::string first_sidecar = sidecar_path_of(cfg_.out_path, json::parse(first));
  // A second run (another seed: other samples) killed between the two writes.
  cfg_.schedule.seed = 2;
  cfg_.after_sidecar_written = [] { throw Killed(); };
  EXPECT_THROW(run_campaign(cfg_, be), Killed);
  EXPECT_EQ(read_file(cfg_.out_path), first);
  EXPECT_TRUE(audit_receipt(cfg_.out_path, std::nullopt).ok()) << "the old receipt must still find its own sidecar";
  fs::remove(cfg_.out_path + ".journal");
  // And a kill inside a sidecar's write leaves its temporary (of a process now gone).
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  write_file_atomic((dir_ / ("r.0123456789abcdef.samples.json.tmp." + std::to_string(gone) + ".0")).string(), "{");
  cfg_.after_sidecar_written = nullptr;
  cfg_.schedule.seed = 3;
  run_campaign(cfg_, be);
  const std::string second_sidecar = sidecar_path_of(cfg_.out_path, json::parse(read_file(cfg_.out_path)));
  EXPECT_NE(second_sidecar, first_sidecar);
  EXPECT_FALSE(fs::exists(first_sidecar)) << "the replaced receipt's sidecar goes with it";
  EXPECT_TRUE(audit_receipt(cfg_.out_path, std::nullopt).ok());
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{"t.json", "r.json", fs::path(second_sidecar).filename().string()}))
      << "the killed runs' orphan sidecar and temporary go too";
}

// An old receipt's samples.path is not trusted as a name to delete: a forced run removes only a
// sidecar kgate wrote for that receipt (its name's digest is its bytes').
TEST_F(CampaignTest, AForcedRunDeletesOnlyItsOwnSidecars) {
  FakeBackend be;
  run_campaign(cfg_, be);
  json r = json::parse(read_file(cfg_.out_path));
  for (const char* victim : {"victim.json", "r.0123456789abcdef.samples.json"}) {
    write_file_atomic((dir_ / victim).string(), "not a sidecar");
    r["body"]["predicate"]["samples"]["path"] = victim;
    write_file_atomic(cfg_.out_path, receipt_bytes(seal_receipt(r["body"], std::nullopt)));
    run_campaign(cfg_, be);
    EXPECT_EQ(read_file((dir_ / victim).string()), "not a sidecar") << victim;
  }
}

// A CUPTI row records where each arm's time goes: per activity (kernel name, memcpy), its time
// per call, 0 in calls that did not run it; the audit recomputes it from the sidecar, a resumed
// run keeps it through the journal, and the report shows it for arms of several kernels with the
// mangled names cut to their identifier.
TEST_F(CampaignTest, ARowRecordsEachArmsTimePerActivity) {
  FakeBehaviour b;
  b.activity = [](const std::string& arm, int call) {
    if (arm == "ssu.fake_ref") return std::map<std::string, double>{{"memcpy", 1.5}};
    std::map<std::string, double> m{{"_ZN3ssu4fast11main_kernelILi2EEEvP8ssu_args", 6.0},
                                    {"_ZN18446744073709551596x", 0.5}};  // a length that wraps: shown as it is
    if (call % 4 == 0) m["combine_kernel"] = 2.0;                        // one call in four runs it
    return m;
  };
  FakeBackend be(b);
  cfg_.wrap_executor = [](std::unique_ptr<Executor> e) { return std::make_unique<KillAfter>(std::move(e), 2); };
  EXPECT_THROW(run_campaign(cfg_, be), Killed);
  cfg_.wrap_executor = nullptr;
  cfg_.resume = true;
  run_campaign(cfg_, be);
  const json rows = rows_by_id();  // audits: the summaries are recomputed from the sidecar
  for (const char* id : {"r0", "r1", "r2"}) {
    const json& a = rows[id]["activity_us"];
    const int64_t calls = rows[id]["pairs"][0]["candidate_stats"]["n"];
    const json& main = a["ssu.fake_cand"]["_ZN3ssu4fast11main_kernelILi2EEEvP8ssu_args"];
    EXPECT_DOUBLE_EQ(main["median"].get<double>(), 6.0) << id;
    EXPECT_EQ(main["n"].get<int64_t>(), calls) << id;
    const json& combine = a["ssu.fake_cand"]["combine_kernel"];
    EXPECT_DOUBLE_EQ(combine["median"].get<double>(), 0.0) << id;  // absent from 3 calls in 4
    EXPECT_DOUBLE_EQ(combine["max"].get<double>(), 2.0) << id;
    EXPECT_EQ(combine["n"].get<int64_t>(), calls) << id;
    EXPECT_DOUBLE_EQ(a["ssu.fake_ref"]["memcpy"]["median"].get<double>(), 1.5) << id;
  }
  const std::string md = report_markdown(report_view(json::parse(read_file(cfg_.out_path)), cfg_.out_path));
  EXPECT_NE(md.find("Time per activity"), std::string::npos);
  EXPECT_NE(md.find("`main_kernel`"), std::string::npos) << md;
  EXPECT_NE(md.find("`combine_kernel`"), std::string::npos);
  EXPECT_NE(md.find("`_ZN18446744073709551596x`"), std::string::npos);
  EXPECT_EQ(md.find("`memcpy`"), std::string::npos) << "an arm of one activity is not broken down";
  // A receipt whose rows have no activity (another timer, receipts from before) has no such field.
  FakeBackend plain;
  cfg_.resume = false;
  cfg_.out_path = (dir_ / "plain.json").string();
  run_campaign(cfg_, plain);
  const json plain_rows = rows_by_id();  // kept alive: a range-for over a temporary's items() dangles
  for (const auto& [id, row] : plain_rows.items()) EXPECT_FALSE(row.contains("activity_us")) << id;
}
