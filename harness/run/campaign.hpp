#pragma once
// The campaign: plan -> executor -> journal -> assemble -> seal. Backend-agnostic.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/cases.hpp"
#include "harness/core/gates.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/schedule.hpp"
#include "harness/run/backend.hpp"

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

}  // namespace kgate
