// The timed-call proof on the CPU backend (DESIGN.md, "Timed calls are proven too"): arms that
// cheat after passing their checks (compute on the first call only, memoize by input address,
// write only on even calls, write the previous call's output) make their row incorrect, naming
// a timed call, for axpy (y updated in place) and ssu (the state pool updated in place); an
// honest arm passes. The cheating arms are registered in this test binary only.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/verdicts.hpp"
#include "harness/run/campaign.hpp"
#include "kernels/axpy/family.hpp"
#include "kernels/ssu/family.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;
namespace fs = std::filesystem;

namespace {

// Calls every cheating arm makes honestly first: the row's two checks (input sets 0 and 1).
constexpr int kHonestCalls = 2;

enum class Cheat { first_only, memoize, even_only, stale };

// What a cheating arm remembers between calls (reset by each test).
struct CheatState {
  int calls = 0;
  std::map<const void*, std::vector<float>> by_address;  // memoize: output per input pointer
  std::vector<float> previous;                           // stale: the previous call's output
  void reset() { *this = CheatState{}; }
};
CheatState g_state;

// Whether this call computes honestly, and what it writes otherwise, for one cheat. `compute`
// computes into `out`, `out` is the arm's output buffer, `key` the input address it memoizes by.
template <class Compute>
void cheat_call(Cheat cheat, const void* key, std::vector<float>& out, Compute&& compute) {
  const int n = g_state.calls++;
  if (n < kHonestCalls) return compute(out);
  const int k = n - kHonestCalls;
  switch (cheat) {
    case Cheat::first_only:
      if (k == 0) compute(out);
      return;
    case Cheat::even_only:
      if (k % 2 == 0) compute(out);
      return;
    case Cheat::memoize: {
      auto it = g_state.by_address.find(key);
      if (it != g_state.by_address.end()) {
        std::copy(it->second.begin(), it->second.end(), out.begin());
        return;
      }
      compute(out);
      g_state.by_address[key] = out;
      return;
    }
    case Cheat::stale: {
      std::vector<float> fresh = out;
      compute(fresh);
      out = g_state.previous.empty() ? fresh : g_state.previous;
      g_state.previous = std::move(fresh);
      return;
    }
  }
}

// axpy: y += a * x in place.
template <Cheat C>
void axpy_cheat(const axpy_args& a) {
  std::vector<float> y(a.y, a.y + a.n);
  cheat_call(C, a.x, y, [&](std::vector<float>& out) { axpy::cpu_scalar({a.n, a.a, a.x, out.data()}); });
  std::copy(y.begin(), y.end(), a.y);
}

// An honest axpy arm that counts its calls.
int g_counted_calls = 0;
void axpy_counting(const axpy_args& a) {
  ++g_counted_calls;
  axpy::cpu_scalar(a);
}

// ssu: the pool updated in place, out written; the cheats act on out, the pool is updated honestly
// (a cheat on out alone must be caught).
template <Cheat C>
void ssu_cheat(const ssu::HostProblem& hp, std::vector<float>& state, std::vector<float>& out) {
  cheat_call(C, hp.x.data(), out, [&](std::vector<float>& o) {
    std::vector<float> st = state;
    ssu::cpu_scalar(hp, st, o);
    state = st;
  });
}

template <class Arm>
void register_arm(const std::string& name, const std::string& family, const Arm* arm) {
  Registry& r = Registry::instance();
  for (const auto& i : r.impls())
    if (i.name == name) return;
  Implementation impl;
  impl.name = name;
  impl.family = family;
  impl.backend = "cpu";
  impl.role = "candidate";
  impl.archs = {"host"};
  impl.description = "a test arm of the timed-call proof";
  impl.arm = arm;
  r.add(std::move(impl));
}

const CpuArm<axpy::CpuFn> kAxpyFirstOnly{&axpy_cheat<Cheat::first_only>}, kAxpyMemoize{&axpy_cheat<Cheat::memoize>},
    kAxpyEvenOnly{&axpy_cheat<Cheat::even_only>}, kAxpyStale{&axpy_cheat<Cheat::stale>}, kAxpyCounting{&axpy_counting};
const CpuArm<ssu::CpuFn> kSsuFirstOnly{&ssu_cheat<Cheat::first_only>}, kSsuMemoize{&ssu_cheat<Cheat::memoize>},
    kSsuEvenOnly{&ssu_cheat<Cheat::even_only>}, kSsuStale{&ssu_cheat<Cheat::stale>};

const char* kAxpyTable = R"({"table": "t_axpy", "family": "axpy", "rows": [
    {"id": "a0", "params": {"n": 1024, "a_milli": 750}}]})";
const char* kSsuTable = R"({"table": "t_ssu", "family": "ssu", "rows": [
    {"id": "s0", "params": {"batch": 2, "nheads": 4, "ngroups": 1, "pool_slots": 4, "state_dtype": "fp32",
                            "io_dtype": "fp32", "weight_dtype": "fp32", "softplus": true, "has_z": false,
                            "pad_slots": 0, "fused_extra": 0}}]})";

class TimedProof : public ::testing::Test {
 protected:
  void SetUp() override {
    register_arm("axpy.test_first_only", "axpy", &kAxpyFirstOnly);
    register_arm("axpy.test_memoize", "axpy", &kAxpyMemoize);
    register_arm("axpy.test_even_only", "axpy", &kAxpyEvenOnly);
    register_arm("axpy.test_stale", "axpy", &kAxpyStale);
    register_arm("axpy.test_counting", "axpy", &kAxpyCounting);
    register_arm("ssu.test_first_only", "ssu", &kSsuFirstOnly);
    register_arm("ssu.test_memoize", "ssu", &kSsuMemoize);
    register_arm("ssu.test_even_only", "ssu", &kSsuEvenOnly);
    register_arm("ssu.test_stale", "ssu", &kSsuStale);
    dir_ = fresh_temp_dir("kgate_proof_");
    write_file_atomic((dir_ / "axpy.json").string(), kAxpyTable);
    write_file_atomic((dir_ / "ssu.json").string(), kSsuTable);
    g_state.reset();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One campaign of `candidate` against the family's scalar arm; the receipt's one row.
  json run_row(const std::string& family, const std::string& candidate, bool isolate = false) {
    RunConfig cfg;
    cfg.cases_path = (dir_ / (family + ".json")).string();
    cfg.candidate = candidate;
    cfg.baselines = {family + ".cpu_scalar"};
    cfg.policy = Policy::parse("correct");
    cfg.schedule = {2, 2, 2, 7};
    cfg.warmup_min_us = 0;
    cfg.warmup_min_calls = 3;
    cfg.quiet = true;
    cfg.isolate = isolate;
    cfg.out_path = (dir_ / (candidate + (isolate ? ".iso" : "") + ".json")).string();
    run_campaign(cfg, [] { return make_cpu_backend(); });
    const AuditResult a = audit_receipt(cfg.out_path, std::nullopt);
    EXPECT_TRUE(a.ok()) << (a.problems.empty() ? "" : a.problems.front());
    return json::parse(read_file(cfg.out_path))["body"]["predicate"]["rows"][0];
  }
  void expect_caught(const std::string& family, const std::string& arm) {
    g_state.reset();
    const json row = run_row(family, arm);
    EXPECT_EQ(row["disposition"], "incorrect") << arm;
    const std::string error = row["error"].is_string() ? row["error"].get<std::string>() : "";
    EXPECT_NE(error.find("arm " + arm + ": timed call "), std::string::npos) << arm << ": " << error;
    EXPECT_NE(error.find("elements wrong"), std::string::npos) << arm << ": " << error;
    const json& p = row["proof"]["arms"][arm];
    EXPECT_GE(p["failed_calls"].get<int64_t>(), 1) << arm;
    EXPECT_EQ(p["first_failure"], error) << arm;
    for (const auto& c : p["checks"]) EXPECT_TRUE(c["passed"].get<bool>()) << arm << ": its checks are honest";
  }
  fs::path dir_;
};

}  // namespace

TEST_F(TimedProof, HonestArmsPassWithEveryTimedCallAccounted) {
  for (const std::string family : {"axpy", "ssu"}) {
    const json row = run_row(family, family + ".cpu_eigen");
    EXPECT_EQ(row["disposition"], "passed") << family << ": " << row["error"];
    const json& proof = row["proof"];
    EXPECT_EQ(proof["input_sets"], 3);
    ASSERT_EQ(proof["seeds"].size(), 3u);
    EXPECT_NE(proof["seeds"][0], proof["seeds"][1]);
    for (const std::string arm : {family + ".cpu_eigen", family + ".cpu_scalar"}) {
      const json& a = proof["arms"][arm];
      EXPECT_EQ(a["timed_calls"], 2 * 2 * 2 * 2) << arm;            // groups x blocks x (2 letters) x m
      EXPECT_GE(a["verified_calls"].get<int64_t>(), 2 * 2) << arm;  // >= 2 per unit: last + other parity
      EXPECT_EQ(a["failed_calls"], 0) << arm;
      ASSERT_EQ(a["checks"].size(), 2u) << arm;
      EXPECT_EQ(a["checks"][1]["set"], 1) << arm;
    }
  }
}

TEST_F(TimedProof, EachVerifiedCallIsFollowedByTwoUntimedCallsOfItsArm) {
  // The arm's calls: its two checks, 3 warm-up calls per unit (2 units), its timed calls, and two
  // untimed calls after each verified one but the unit's last (so the check's device work does not
  // slow the next timed call, and the parity of the arm's calls is kept).
  g_counted_calls = 0;
  const json row = run_row("axpy", "axpy.test_counting");
  ASSERT_EQ(row["disposition"], "passed") << row["error"];
  const json& a = row["proof"]["arms"]["axpy.test_counting"];
  EXPECT_EQ(g_counted_calls, 2 + 2 * 3 + a["timed_calls"].get<int>() + 2 * (a["verified_calls"].get<int>() - 2));
}

TEST_F(TimedProof, AxpyCheatsAreIncorrectNamingATimedCall) {
  for (const char* arm : {"axpy.test_first_only", "axpy.test_memoize", "axpy.test_even_only", "axpy.test_stale"})
    expect_caught("axpy", arm);
}

TEST_F(TimedProof, SsuCheatsAreIncorrectNamingATimedCall) {
  for (const char* arm : {"ssu.test_first_only", "ssu.test_memoize", "ssu.test_even_only", "ssu.test_stale"})
    expect_caught("ssu", arm);
}

TEST_F(TimedProof, IsolatedUnitsCarryTheProof) {
  // Each unit in a child process: the proof's counts and failure come back through the pipe.
  const json honest = run_row("axpy", "axpy.cpu_eigen", true);
  EXPECT_EQ(honest["disposition"], "passed") << honest["error"];
  EXPECT_EQ(honest["proof"]["arms"]["axpy.cpu_eigen"]["timed_calls"], 16);
  const json cheat = run_row("axpy", "axpy.test_first_only", true);
  EXPECT_EQ(cheat["disposition"], "incorrect");
  EXPECT_NE(cheat["error"].get<std::string>().find("timed call"), std::string::npos) << cheat["error"];
}

TEST_F(TimedProof, VerifiedCallsCoverTheLastBothParitiesAndTwoSets) {
  for (uint64_t seed = 1; seed < 200; ++seed)
    for (int64_t calls : {2, 3, 8, 17, 72}) {
      // A share of 0 leaves only what the rule adds: the last call, the other parity, two sets.
      const std::vector<bool> v = verified_calls(calls, seed % 2 ? 0.0 : 0.125, seed, 3);
      ASSERT_EQ(v.size(), static_cast<size_t>(calls));
      EXPECT_TRUE(v.back());
      std::set<int64_t> parities, sets;
      for (int64_t i = 0; i < calls; ++i)
        if (v[i]) {
          parities.insert(i % 2);
          sets.insert(i % 3);
        }
      EXPECT_EQ(parities.size(), 2u) << calls << " calls, seed " << seed;
      EXPECT_GE(sets.size(), 2u) << calls << " calls, seed " << seed;
      EXPECT_EQ(v, verified_calls(calls, seed % 2 ? 0.0 : 0.125, seed, 3)) << "deterministic";
    }
  // The share is honoured: about 1/8 of 10,000 calls.
  const std::vector<bool> many = verified_calls(10000, 0.125, 42, 3);
  const auto n = std::count(many.begin(), many.end(), true);
  EXPECT_GT(n, 1100);
  EXPECT_LT(n, 1400);
}

TEST_F(TimedProof, AuditRefusesAPassedRowWhoseProofFailed) {
  RowRecord row;
  row.id = "r";
  row.disposition = Disposition::passed;
  RowProof p;
  p.input_sets = 2;
  p.seeds = {1, 2};
  RowSamples s;
  p.arms["x"].calls = {8, 2, 0, ""};
  row.proof = p;
  EXPECT_NO_THROW(derive_row(row, &s, Policy::parse("correct"), DeriveContext{})) << "a clean proof is accepted";
  row.proof->arms["x"].calls = {8, 2, 1, "arm x: timed call 8 of group 1 (input set 1): ..."};
  EXPECT_THROW(derive_row(row, &s, Policy::parse("correct"), DeriveContext{}), AuditError);
  row.proof->arms["x"].calls = {8, 2, 0, ""};
  row.proof->arms["x"].checks = {{0, true, 0, 0}, {1, false, 3, 0.5}};
  EXPECT_THROW(derive_row(row, &s, Policy::parse("correct"), DeriveContext{}), AuditError);
}

namespace {

// A CPU backend whose device holds inputs for two rows at most: a third row's input sets throw
// MemoryShort, as the GPU contexts' require_free does when the rows kept across a group's units
// fill the device.
int g_live_contexts = 0;
class TwoRowsContext final : public RowContext {
 public:
  explicit TwoRowsContext(std::unique_ptr<RowContext> inner) : inner_(std::move(inner)) { ++g_live_contexts; }
  ~TwoRowsContext() override { --g_live_contexts; }
  Correctness check(const Implementation& i) override { return inner_->check(i); }
  Sample time_once(const Implementation& i) override { return inner_->time_once(i); }
  double warm_call_us(const Implementation& i) override { return inner_->warm_call_us(i); }
  void add_input_sets(const std::vector<uint64_t>& seeds) override {
    if (g_live_contexts > 2) throw MemoryShort("input set 1: does not fit (a test device of two rows)");
    inner_->add_input_sets(seeds);
  }
  int input_sets() const override { return inner_->input_sets(); }
  void load_input(int set) override { inner_->load_input(set); }
  void prepare_verified(const Implementation& i) override { inner_->prepare_verified(i); }
  Correctness verify(const Implementation& i) override { return inner_->verify(i); }

 private:
  std::unique_ptr<RowContext> inner_;
};
class TwoRowsBackend final : public Backend {
 public:
  std::string name() const override { return cpu_->name(); }
  std::string timer() const override { return cpu_->timer(); }
  std::string arch() const override { return cpu_->arch(); }
  json environment() const override { return cpu_->environment(); }
  json protocol() const override { return cpu_->protocol(); }
  std::unique_ptr<RowContext> prepare(const Family& f, const CaseRow& row, uint64_t seed) override {
    return std::make_unique<TwoRowsContext>(cpu_->prepare(f, row, seed));
  }

 private:
  std::unique_ptr<Backend> cpu_ = make_cpu_backend();
};

}  // namespace

TEST_F(TimedProof, RowsThatFillTheDeviceFreeTheKeptContextsAndStartOver) {
  // Four rows, each kept from its group-1 unit to its last: without freeing the others, the third
  // row's inputs do not fit and it fails; freed and started over, every row passes, its proof whole.
  write_file_atomic((dir_ / "axpy4.json").string(), R"({"table": "t_axpy4", "family": "axpy", "rows": [
      {"id": "a0", "params": {"n": 256, "a_milli": 750}}, {"id": "a1", "params": {"n": 512, "a_milli": 500}},
      {"id": "a2", "params": {"n": 768, "a_milli": 250}}, {"id": "a3", "params": {"n": 1024, "a_milli": 125}}]})");
  RunConfig cfg;
  cfg.cases_path = (dir_ / "axpy4.json").string();
  cfg.candidate = "axpy.cpu_eigen";
  cfg.baselines = {"axpy.cpu_scalar"};
  cfg.policy = Policy::parse("correct");
  cfg.schedule = {3, 2, 2, 7};
  cfg.warmup_min_us = 0;
  cfg.warmup_min_calls = 1;
  cfg.quiet = true;
  cfg.out_path = (dir_ / "axpy4.receipt.json").string();
  g_live_contexts = 0;
  run_campaign(cfg, [] { return std::make_unique<TwoRowsBackend>(); });
  EXPECT_EQ(g_live_contexts, 0);
  const json pred = json::parse(read_file(cfg.out_path))["body"]["predicate"];
  // The proof's cost is sealed with its parts, which add up to it.
  const json& ph = pred["run"]["phases_s"];
  const json& parts = ph["proof_parts"];
  EXPECT_GT(parts["inputs"].get<double>(), 0);
  EXPECT_GT(parts["checks"].get<double>(), 0);
  EXPECT_GT(parts["verified"].get<double>(), 0);
  EXPECT_NEAR(parts["inputs"].get<double>() + parts["checks"].get<double>() + parts["verified"].get<double>(),
              ph["proof"].get<double>(), 1e-9);
  const json& rows = pred["rows"];
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_EQ(row["disposition"], "passed") << row["id"] << ": " << row["error"];
    EXPECT_EQ(row["proof"]["arms"]["axpy.cpu_eigen"]["timed_calls"], 3 * 2 * 2 * 2) << row["id"];
  }
}
