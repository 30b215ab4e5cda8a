#pragma once
// Helpers shared by the subcommands; each subcommand lives in its own file (cmd_*.cpp).
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

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

// "auto" picks the GPU backend when kgate was built with CUDA and a device is present.
std::unique_ptr<Backend> select_backend(const std::string& which, const std::string& timer, bool warm,
                                        bool announce);
bool gpu_available(std::string* why);
std::string source_root();
// A path under the source root is recorded relative to it (stable across checkouts).
std::string portable_path(const std::string& path);

}  // namespace kgate::cli
