#pragma once
// A backend that runs no kernel, for campaign tests on the CPU: arms are told apart by name and
// each call reports what the test's behaviour says (a time, an activity signature); preparing a
// row may refuse it, fail, or crash, the way a real context can.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "harness/run/campaign.hpp"

namespace kgate::testing {

// The ranks of a fake job, ordered like the collectives of NCCL ranks on one communicator: each
// call is a round that every rank must join, and every rank must make the same kind of call in a
// round. agree(ok) is an agreement (Backend::ranks_agree's all-reduce: true when every rank's ok
// was); arm_collective() is an arm's own collective (the all-gather a collective arm makes in every
// call). Ranks that make different calls in a round throw DeviceError (NCCL would hang or pair the
// wrong buffers), and so does a rank that waits past `bound` (a collective a rank never joins).
class FakeJob {
 public:
  FakeJob(int world_size, std::chrono::milliseconds bound) : world_(world_size), bound_(bound) {}
  bool agree(bool ok) { return round("an agreement", ok); }
  void arm_collective() { round("an arm's collective", true); }

 private:
  bool round(const std::string& kind, bool ok) {
    std::unique_lock<std::mutex> lock(m_);
    const uint64_t round = round_;
    if (arrived_ == 0)
      kind_ = kind;
    else if (kind_ != kind)
      mismatch_ = kind_ + " and " + kind;
    all_ok_ = all_ok_ && ok;
    if (++arrived_ == world_) {
      result_ = all_ok_;
      result_mismatch_ = mismatch_;
      all_ok_ = true;
      mismatch_.clear();
      arrived_ = 0;
      ++round_;
      cv_.notify_all();
    } else if (!cv_.wait_for(lock, bound_, [&] { return round_ != round; })) {
      // The next round cannot complete before this rank joins it, so the results are this round's.
      throw DeviceError("fake job: a rank did not join round " + std::to_string(round) + " within the bound");
    }
    if (!result_mismatch_.empty())
      throw DeviceError("fake job: in round " + std::to_string(round) + " the ranks made " + result_mismatch_);
    return result_;
  }
  const int world_;
  const std::chrono::milliseconds bound_;
  std::mutex m_;
  std::condition_variable cv_;
  uint64_t round_ = 0;
  int arrived_ = 0;
  bool all_ok_ = true, result_ = true;
  std::string kind_, mismatch_, result_mismatch_;
};

struct FakeBehaviour {
  // A rank of `job` (none: a rank alone): the backend agrees through it, and the context makes the
  // calls a GPU rank of a collective arm makes: the arm's collective in every check, warm-up call
  // and timed call, an agreement before every timed call and after every warm-up call.
  std::shared_ptr<FakeJob> job;
  std::string arch = "fake";  // the architecture arms are matched against
  // Whether an arm's check passes on a row, after its call (may throw, as a reference can).
  std::function<bool(const std::string& arm, const std::string& row_id)> passes =
      [](const std::string&, const std::string&) { return true; };
  // Called after each timed call on a row (may throw, as a timer that lost records does): `call`
  // counts the arm's timed calls in the row's context, `row_call` every arm's.
  std::function<void(const std::string& arm, const std::string& row_id, int call, int row_call)> after_call =
      [](const std::string&, const std::string&, int, int) {};
  // Per call of an arm (call counts from 1 within the row's context).
  std::function<Signature(const std::string& arm, int call)> signature = [](const std::string&, int) {
    return Signature{1, 1, {"ssu_fast_kernel"}};
  };
  std::function<double(const std::string& arm, int call)> us = [](const std::string& arm, int call) {
    return arm == "ssu.fake_ref" ? 10.0 + 0.01 * (call % 5) : 8.0 + 0.01 * (call % 7);
  };
  // When set, the call's time instead of `us`, given the arm the context called last before it (its
  // check, a warm-up call or a timed call; "" for none): a carryover from one arm to the next.
  std::function<double(const std::string& arm, int call, const std::string& previous)> us_after;
  // The call's activity intervals (as a CUPTI timer of a job's rank gives them); none by default.
  std::function<std::vector<std::pair<uint64_t, uint64_t>>(const std::string& arm, int call)> intervals =
      [](const std::string&, int) { return std::vector<std::pair<uint64_t, uint64_t>>{}; };
  // The call's time per activity (as a CUPTI timer gives it); none by default.
  std::function<std::map<std::string, double>(const std::string& arm, int call)> activity =
      [](const std::string&, int) { return std::map<std::string, double>{}; };
  // Why an arm refuses a row's inputs ("" when it takes them), as an export's supports() over the
  // row's C args says through its context.
  std::function<std::string(const std::string& arm, const std::string& row_id)> refusal =
      [](const std::string&, const std::string&) { return std::string(); };
  // Called when a row's inputs are made (may throw InputError, a runtime error, or raise).
  std::function<void(const CaseRow&)> on_prepare = [](const CaseRow&) {};
};

class FakeContext final : public RowContext {
 public:
  FakeContext(const FakeBehaviour& b, std::string row_id) : b_(b), row_(std::move(row_id)) {}
  Correctness check(const Implementation& impl) override {
    if (b_.job) b_.job->arm_collective();
    previous_ = impl.name;
    Correctness c;
    c.passed = b_.passes(impl.name, row_);
    c.elements = 1;
    if (!c.passed) {
      c.mismatches = 1;
      c.note = "fake: " + impl.name + " is wrong on " + row_;
    }
    return c;
  }
  Sample time_once(const Implementation& impl) override {
    agree();  // a GPU rank's sample starts with the ranks' agreement
    if (b_.job) b_.job->arm_collective();
    int n = ++calls_[impl.name];
    Sample s;
    s.signature = b_.signature(impl.name, n);
    s.us = b_.us_after ? b_.us_after(impl.name, n, previous_) : b_.us(impl.name, n);
    previous_ = impl.name;
    s.intervals_ns = b_.intervals(impl.name, n);
    s.activity_us = b_.activity(impl.name, n);
    b_.after_call(impl.name, row_, n, ++row_calls_);
    return s;
  }
  double warm_call_us(const Implementation& impl) override {
    if (b_.job) b_.job->arm_collective();
    previous_ = impl.name;
    agree();  // a GPU rank agrees on every warm-up call's time
    return 1000;
  }
  json config(const Implementation& impl) const override { return json{{"arm", impl.name}, {"tile", 8}}; }
  std::string refusal(const Implementation& impl) override { return b_.refusal(impl.name, row_); }
  // The timed-call proof: sets are counted, and a verified call passes (its output is the fake's).
  void add_input_sets(const std::vector<uint64_t>& seeds) override { sets_ = 1 + static_cast<int>(seeds.size()); }
  int input_sets() const override { return sets_; }
  void load_input(int set) override {
    if (set < 0 || set >= sets_) throw std::logic_error("fake: input set out of range");
  }
  void prepare_verified(const Implementation&) override {}
  Correctness verify(const Implementation&) override {
    Correctness c;
    c.passed = true;
    c.elements = 1;
    return c;
  }

 private:
  void agree() {
    if (b_.job && !b_.job->agree(true)) throw RankAbandoned();
  }
  const FakeBehaviour& b_;
  std::string row_;
  std::map<std::string, int> calls_;
  int row_calls_ = 0;
  int sets_ = 1;
  std::string previous_;
};

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(FakeBehaviour b = {}) : b_(std::move(b)) {}
  std::string name() const override { return "fake"; }
  std::string timer() const override { return "cupti"; }
  std::string arch() const override { return b_.arch; }
  json environment() const override { return json{{"gpus", json::array()}, {"cpu", "fake"}}; }
  json protocol() const override { return json{{"cold_l2", true}, {"flush_bytes", 0}}; }
  std::unique_ptr<RowContext> prepare(const Family&, const CaseRow& row, uint64_t) override {
    b_.on_prepare(row);
    return std::make_unique<FakeContext>(b_, row.id);
  }
  bool ranks_agree(bool ok) override { return b_.job ? b_.job->agree(ok) : ok; }

 private:
  FakeBehaviour b_;
};

// A `supports` hook that refuses row r1 of kFakeTable (its batch of 2), as an arm with a tile constraint would.
inline std::string refuse_r1(const json& p) { return p["batch"] == 2 ? "batch 2 is not a tile multiple" : ""; }

// Registers an ssu arm of the fake backend once (the registry is process-wide).
inline void add_fake_arm(const std::string& name, std::vector<std::string> archs = {"fake"},
                         std::string (*supports)(const json&) = nullptr) {
  Registry& r = Registry::instance();
  for (const auto& i : r.impls())
    if (i.name == name) return;
  r.add({name, "ssu", "fake", "candidate", std::move(archs), {"ssu_fast_kernel"}, {}, "test arm", supports, {}});
}

// A small ssu table (rows "r0", "r1", "r2"): the fake backend never reads the params.
inline const char* kFakeTable = R"({"table": "t", "family": "ssu", "rows": [
    {"id": "r0", "params": {"batch": 1, "nheads": 2, "ngroups": 1, "pool_slots": 2, "state_dtype": "bf16"}},
    {"id": "r1", "params": {"batch": 2, "nheads": 2, "ngroups": 1, "pool_slots": 2, "state_dtype": "bf16"}},
    {"id": "r2", "params": {"batch": 1, "nheads": 4, "ngroups": 1, "pool_slots": 2, "state_dtype": "fp32"}}]})";

// The campaign tests' run: the fake table at `cases_path`, ssu.fake_cand vs ssu.fake_ref, two
// groups of two blocks of two pairs, no warm-up to speak of, quiet.
inline RunConfig fake_run_config(const std::string& cases_path, const std::string& policy) {
  RunConfig cfg;
  cfg.cases_path = cases_path;
  cfg.candidate = "ssu.fake_cand";
  cfg.baselines = {"ssu.fake_ref"};
  cfg.policy = Policy::parse(policy);
  cfg.schedule = {2, 2, 2, 1};
  cfg.warmup_min_us = 0;
  cfg.warmup_min_calls = 1;
  cfg.quiet = true;
  return cfg;
}

}  // namespace kgate::testing
