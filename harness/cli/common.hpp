#pragma once
// Helpers shared by the subcommands; each subcommand lives in its own file (cmd_*.cpp).
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/policy.hpp"
#include "harness/run/campaign.hpp"
#include "harness/run/preflight.hpp"
#include "harness/run/ranks.hpp"

namespace kgate::cli {

using Action = std::function<int()>;
// Each subcommand registers itself on `app` and stores what to run in `action` when chosen.
void add_list(CLI::App& app, Action& action);
void add_env(CLI::App& app, Action& action);
void add_run(CLI::App& app, Action& action);
void add_audit(CLI::App& app, Action& action);
void add_gate(CLI::App& app, Action& action);
void add_compare(CLI::App& app, Action& action);
void add_report(CLI::App& app, Action& action);
void add_keygen(CLI::App& app, Action& action);
void add_export(CLI::App& app, Action& action);
void add_carryover(CLI::App& app, Action& action);
void add_rerun(CLI::App& app, Action& action);
void add_index(CLI::App& app, Action& action);
void add_sanitize(CLI::App& app, Action& action);
void add_accept(CLI::App& app, Action& action);

// What `kgate run` was asked (cmd_run.cpp); `kgate rerun` fills one from a receipt.
struct RunOpts {
  std::string cases, rows, candidate, baselines, out, out_dir = "out", policy = "correct", sign;
  std::string backend = "auto", timer = "cupti", suite, launch = "direct";
  bool resume = false, force = false, warm = false, quiet = false, isolate = false, json = false, no_peaks = false;
  int groups = 3, blocks = 6, m = 2;
  int simulate_ranks = 0;  // 0: off
  int gpus = 0;            // rank threads, 0: off
  std::string rendezvous;  // rank processes (launcher environment), "": off
  double rank_timeout_s = 300;
  double unit_timeout_s = 0;  // --unit-timeout (with --isolate), 0: none
  ranks::RankEnv env;         // read when --rendezvous is given
  uint64_t seed = 20261129;
  double warmup_us = 1000;
  int warmup_calls = 3;
  int input_sets = 3;                     // the timed-call proof's input sets per row
  std::optional<Policy> recorded_policy;  // rerun: the receipt's policy, in place of `policy`
  bool check_only = false;                // run --check-only: correctness only, no receipt
  std::string check_arm;                  // with check_only: only this arm ("": every arm)
};
// Every campaign `o` asks for (one with --cases, else the suite's entries), each preflighted
// against the backend it will use: every flag and file checked, nothing run, the device not
// opened. Throws InputError.
struct PreparedRun {
  std::string backend_name;
  std::string suite_path;  // "" for one campaign (--cases)
  std::vector<PreflightedRun> campaigns;
};
PreparedRun prepare_run(RunOpts& o);
// `kgate run` with `o`: its prepared campaigns run in turn; its exit code. With `result`, the
// runs' JSON summaries (one per campaign) go there instead of to stdout under --json.
int execute_run(const std::shared_ptr<RunOpts>& o, PreparedRun& prepared, json* result = nullptr);

// `kgate run --check-only` (cmd_sanitize.cpp): every row of the prepared campaigns prepared and
// every arm (o.check_arm only, when given) checked once against the oracle, one line per check;
// nothing timed, nothing written. 0 every check passed, 1 one failed.
int run_check_only(const RunOpts& o, PreparedRun& prepared);

// A policy's by_baseline keys as the plan names export baselines (export:<file>:<arm>), however the
// policy spelled the library's path.
void portable_by_baseline(Policy& p);

// --backend's values.
inline const std::vector<std::string> kBackends = {"auto", "cpu", "cuda"};
// --sign's value: a path. An empty one is refused: it would silently make an unsigned receipt.
inline const CLI::Validator kSignKeyPath(
    [](std::string& v) {
      return v.empty() ? std::string("an empty key path (leave --sign out for an unsigned receipt)") : std::string();
    },
    "KEY");
// "auto" picks the GPU backend when kgate was built with CUDA and a device is present.
// `announce` says so on stderr when auto falls back to the CPU: only once the backend is used.
// simulate_ranks W > 0: the GPU backend plays W ranks on device 0 (run --simulate-ranks).
std::unique_ptr<Backend> select_backend(const std::string& which, const std::string& timer, bool warm, bool announce,
                                        int simulate_ranks = 0);
// The backend --backend `which` will open ("cpu" | "cuda"), found without opening it or saying
// anything, so a run can preflight its arms against it first. With `isolate` the parent must
// not initialize CUDA: auto looks for the driver's device node instead.
std::string backend_name_for(const std::string& which, bool isolate);
bool gpu_available(std::string* why);
// kgate's data: cases/ (the case tables, policies/, suites.json). From --data-dir (set_data_dir),
// else $KGATE_DATA_DIR, else found from the binary's own location: an installed kgate's
// <prefix>/share/kgate, or the source tree its build folder sits in (the nearest folder above the
// binary that holds cases/suites.json). Never a path compiled into the binary: a copied or
// installed kgate reads its own tables. "." when none is found.
std::string data_root();
// --data-dir: a folder holding cases/; InputError otherwise.
void set_data_dir(const std::string& dir);
// A path under the data root is recorded relative to it (stable across checkouts).
std::string portable_path(const std::string& path);
// Where case tables live: <data root>/cases.
std::string cases_dir();

// A subcommand's --help footer: what each exit code means for it, then examples.
std::string help_footer(const std::string& exit_codes, const std::string& examples);
// A derived text: on stdout, or (out not empty) written to `out` atomically.
void emit_text(const std::string& text, const std::string& out);
// A --json result: one document on stdout.
void print_json(const json& j);

}  // namespace kgate::cli
