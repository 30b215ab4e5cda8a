#pragma once
// The campaign: plan -> executor -> journal -> assemble -> seal. Backend-agnostic.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/cases.hpp"
#include "harness/core/policy.hpp"
#include "harness/core/records.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/schedule.hpp"
#include "harness/run/backend.hpp"
#include "harness/run/executor.hpp"

namespace kgate {

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
  ProofConfig proof;  // K input sets per row (--input-sets), the verified share of timed calls
  double warmup_min_us = 1000;
  int warmup_min_calls = 3;
  bool quiet = false;
  bool isolate = false;       // each unit in a child process (a faulting kernel fails only its row)
  double unit_timeout_s = 0;  // with isolate: a unit's child killed after this many seconds; 0: none
  // The run's ranks: a row's world_size (families with that parameter) must equal it. 1 for a
  // plain run; W with --simulate-ranks W (one GPU plays W ranks) or a W-rank job.
  int world_size = 1;
  bool simulated = false;

  // Test seams (faults are injected here by tests, never read from the environment):
  // wraps the executor the campaign made; runs after the sidecar is written, before the receipt.
  std::function<std::unique_ptr<Executor>(std::unique_ptr<Executor>)> wrap_executor;
  std::function<void()> after_sidecar_written;
};

struct RunOutcome {
  std::string receipt_path;
  Summary summary;
  bool policy_passed = false;
  // Host wall seconds by phase of this run's units (with --isolate, as the children measured them).
  // Where a campaign's time goes: prepare (inputs on the device or host; a CPU context also
  // computes its reference there), correctness checks (a GPU context computes its reference on
  // the first one), warm-up, samples.
  PhaseTimes phases;
};

struct PreflightedRun;  // harness/run/preflight.hpp

// The campaign, read top to bottom: plan (the preflighted plan for the opened backend, as the
// journal and receipt name it) -> execute (every unit, journalled) -> assemble (rows, statistics,
// verdicts, summary) -> seal (sidecar and receipt, written together). With cfg.isolate the
// factory is called in each child process; the parent never opens the device.
RunOutcome run_campaign(const PreflightedRun& run, const BackendFactory& make_backend, Backend* given = nullptr);
// A configuration not yet preflighted: preflight_run, then the campaign.
RunOutcome run_campaign(const RunConfig& cfg, const BackendFactory& make_backend, Backend* given = nullptr);
RunOutcome run_campaign(const RunConfig& cfg, Backend& backend);

// The plan of a run: the filtered table, its arms (checked against the family and backend) and
// every unit in schedule order. Throws InputError naming the flag on any mismatch. Reads the
// table itself (a rank's own executor); a campaign takes its plan from the preflight instead.
Plan make_plan(const RunConfig& cfg, const std::string& backend_name);

// An arm as the receipt records it (predicate.arms[]): name, roles, backend, archs, kernel
// names, sources with their digests; an export arm adds its library to the sources (path,
// sha256, size, kind "export_library": a subject with those annotations) and `export`.
json arm_json(const PlanArm& a);
inline constexpr const char* kExportLibraryKind = "export_library";

// The timed-call proof's rule as protocol.proof.rule records it.
inline constexpr const char* kProofRule =
    "inputs rotate over input_sets sets per row (call n of an arm in a unit gets set n mod input_sets, at fixed "
    "addresses); every arm is checked on sets 0 and 1; in every unit the outputs of each arm's last timed call and of "
    "a seeded share (verified_share) of its other timed calls, covering both call parities and two sets, are checked "
    "against the oracle of the set they were given, from a restored state, and followed (unless it is the arm's last "
    "timed call of the unit) by two untimed calls of the arm on the same set; a failed check or verified call makes "
    "the row incorrect";

}  // namespace kgate
