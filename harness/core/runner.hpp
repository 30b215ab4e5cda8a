#pragma once
// The campaign runner: backend-agnostic. A Backend makes a RowContext per (row, unit); the
// context checks correctness, warms up and times one arm call at a time.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/cases.hpp"
#include "harness/core/gates.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/schedule.hpp"

namespace kgate {

struct Correctness {
  bool passed = false;
  double max_abs_err = 0;  // over finite elements
  double max_rel_err = 0;  // |out-ref| / max(|ref|, atol)
  std::string worst;       // coordinates of the worst element
  double worst_out = 0, worst_ref = 0;
  int64_t elements = 0, mismatches = 0, nonfinite = 0, unwritten = 0;
  std::string note;  // e.g. "pad slots: pool entries bit-identical"
  json to_json(const std::string& arm) const;
};

struct Signature {
  int64_t records = 0, launches = 0;          // activity records, launches per call
  std::vector<std::string> kernel_names;      // distinct, sorted
  bool operator==(const Signature&) const = default;
};

struct Sample {
  double us = 0;                       // the timer's value for one call
  std::optional<Signature> signature;  // activity timers only
  double sm_clock_mhz = 0;             // 0 when unknown
  double events_us = 0;                // events timer alongside, when available (0 = none)
  double self_us = 0;                  // the kernel's own clock (calibration arms), 0 = none
};

class RowContext {
 public:
  virtual ~RowContext() = default;
  virtual Correctness check(const Implementation& impl) = 0;
  virtual Sample time_once(const Implementation& impl) = 0;  // flush (outside), then one timed call
  virtual double warm_call_us(const Implementation& impl) = 0;  // one untimed-by-protocol call, its cost
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;   // "cpu" | "cuda"
  virtual std::string timer() const = 0;  // "host" | "cupti" | "events"
  virtual json environment() const = 0;
  virtual json protocol() const = 0;      // flush bytes, cold/warm, ...
  virtual std::unique_ptr<RowContext> prepare(const Family& fam, const CaseRow& row, uint64_t seed) = 0;
};

std::unique_ptr<Backend> make_cpu_backend();

struct RunConfig {
  std::string cases_path;
  std::string rows_filter;
  std::string candidate;
  std::vector<std::string> baselines;
  std::string out_path;
  bool resume = false;
  std::optional<std::string> sign_key;
  Policy policy;
  ScheduleConfig schedule;
  double warmup_min_us = 1000;
  int warmup_min_calls = 3;
  bool quiet = false;
  bool isolate = false;  // each unit in a child process (a faulting kernel fails only its row)
};

struct RunOutcome {
  std::string receipt_path;
  json summary;
  bool policy_passed = false;
  // Host wall seconds by phase in this process (not with --isolate: the units run in children).
  // Where a campaign's time goes: prepare (inputs on the device or host; a CPU context also
  // computes its reference there), correctness checks (a GPU context computes its reference on
  // the first one), warm-up, samples.
  double prepare_s = 0, check_s = 0, warmup_s = 0, timing_s = 0;
};

using BackendFactory = std::function<std::unique_ptr<Backend>()>;
RunOutcome run_campaign(const RunConfig& cfg, Backend& backend);
// With cfg.isolate the factory is called in each child process; the parent never opens the device.
RunOutcome run_campaign(const RunConfig& cfg, const BackendFactory& make_backend, Backend* given = nullptr);

// Compares out against ref element-wise; out_is_poison marks elements never written.
Correctness compare_outputs(const std::vector<double>& out, const std::vector<double>& ref,
                            const std::vector<bool>& unwritten, const Tolerance& tol,
                            const std::function<std::string(size_t)>& coords);

}  // namespace kgate
