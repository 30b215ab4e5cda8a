#pragma once
// Helpers shared by the subcommands; each subcommand lives in its own file (cmd_*.cpp).
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/run/campaign.hpp"

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
void add_index(CLI::App& app, Action& action);

// --backend's values.
inline const std::vector<std::string> kBackends = {"auto", "cpu", "cuda"};
// "auto" picks the GPU backend when kgate was built with CUDA and a device is present.
// `announce` says so on stderr when auto falls back to the CPU: only once the backend is used.
// simulate_ranks W > 0: the GPU backend plays W ranks on device 0 (run --simulate-ranks).
std::unique_ptr<Backend> select_backend(const std::string& which, const std::string& timer, bool warm,
                                        bool announce, int simulate_ranks = 0);
// The backend --backend `which` will open ("cpu" | "cuda"), found without opening it or saying
// anything, so a run can preflight its arms against it first. With `isolate` the parent must
// not initialize CUDA: auto looks for the driver's device node instead.
std::string backend_name_for(const std::string& which, bool isolate);
bool gpu_available(std::string* why);
std::string source_root();
// A path under the source root is recorded relative to it (stable across checkouts).
std::string portable_path(const std::string& path);
// Where case tables live: <source>/cases.
std::string cases_dir();

// A subcommand's --help footer: what each exit code means for it, then examples.
std::string help_footer(const std::string& exit_codes, const std::string& examples);
// A derived text: on stdout, or (out not empty) written to `out` atomically.
void emit_text(const std::string& text, const std::string& out);
// A --json result: one document on stdout.
void print_json(const json& j);

}  // namespace kgate::cli
