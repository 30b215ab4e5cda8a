#pragma once
// Everything about a run's flags and files that can be checked before any work, checked once:
// every entry (run, a suite's entries, rerun) preflights each campaign before the first one
// starts, so a bad flag is exit 2 with nothing written, and hands the result to run_campaign,
// whose steps re-check and re-read nothing. Side-effect free (reads files, writes nothing; an
// export arm it names is loaded): safe to call more than once.
#include <optional>
#include <string>
#include <vector>

#include "harness/core/crypto.hpp"
#include "harness/run/campaign.hpp"

namespace kgate {

inline constexpr size_t kMaxPathBytes = 4096;
// Schedule and warm-up bounds (inclusive).
inline constexpr int kMaxGroups = 1000, kMaxBlocks = 1000, kMaxM = 10000, kMaxWarmupCalls = 1000000;
// Input sets per row (--input-sets): each holds a copy of the per-call inputs and its oracle.
inline constexpr int kMaxInputSets = 64;
inline constexpr double kMaxWarmupUs = 1e9;
inline constexpr double kMaxUnitTimeoutS = 86400;
// groups x blocks x m x rows x baselines above this is refused as absurd.
inline constexpr double kMaxScheduledSamples = 1e8;

// A campaign with every flag and file checked: what run_campaign's steps start from.
struct PreflightedRun {
  RunConfig cfg;  // as given; its rank runner and test seams may still be set (they are not checked)
  // The case table, read once and filtered by --rows. With a backend named, the whole plan: the
  // arms checked against the table's family and that backend, and every unit in schedule order.
  Plan plan;
  std::string backend;                 // the backend the plan's arms were checked against; "" none named
  std::optional<SigningKey> sign_key;  // --sign's key, loaded once: the seal signs with it
};

// Throws InputError naming the flag or file: cases file readable (and a valid table, with
// --rows matching), out path and its sidecar and journal writable targets, sign key a
// readable Ed25519 private key, schedule and warm-up values finite and in range, policy valid.
// Given the name of the backend the run will use ("cpu" | "cuda"), also the arms: registered,
// of the table's family, built for that backend, none named twice (make_plan's checks), so a
// caller can preflight before it opens the backend. `table`: the case table already read from
// cfg.cases_path (a caller that needed its name or family first), used instead of reading it again.
PreflightedRun preflight_run(const RunConfig& cfg, const std::string& backend_name = "",
                             std::optional<CaseTable> table = std::nullopt);

// The plan of a preflighted run for the backend the campaign opened: the preflight's when its
// arms were checked against that backend, else the preflighted table's arms checked against it now.
Plan plan_for_backend(const PreflightedRun& run, const std::string& backend_name);

// On the cuda backend, a table of a family with ranks (a world_size parameter): every row's
// world_size is the run's (cfg.world_size); a family without ranks refuses a world size other than
// 1. The CPU backend plays every row's ranks in one process and refuses a world size other than 1;
// a preflight naming no backend does not check. InputError naming the flag and the first row that differs.
void check_world_size(const RunConfig& cfg, const CaseTable& t, const std::string& backend_name);

// An export arm (export:PATH:NAME) on a run of the cpu backend: refused with an InputError
// prefixed by `flag`, before its library is opened, so none of its code (its constructors) runs,
// unless the table's family runs host exports (Family::host_exports). The loader registers an arm
// built for "host" only for the cpu backend, any other for the cuda backend.
void check_export_arm_backend(const std::string& arm, const std::string& backend_name, const char* flag,
                              const std::string& family);

// The gates that read what the GPU timer records (parity, fallback: each call's activity), in a
// policy of a run of the cpu backend: refused (InputError naming --policy and
// the gate) rather than failing every row after all the work.
void check_policy_backend(const Policy& policy, const std::string& backend_name);

// Loads the export arms (export:PATH:NAME) the run names, checking each library against the
// case table's family; throws InputError prefixed by the flag (--candidate, --baseline).
void register_export_arms(const RunConfig& cfg, const std::string& family);

// A path kgate will read: at most kMaxPathBytes, a readable regular file.
void check_input_file(const std::string& path, const std::string& what);
// check_input_file for a case table; a missing one names the nearest tables in the directory
// it names and under `cases_dir` ("did you mean 'cases/cpu/ssu.json'?").
void check_cases_file(const std::string& path, const std::string& cases_dir, const std::string& what);
// The receipt's file name when --out is not given: <table>.<candidate>.vs.<baseline>[+<baseline>
// ...].<commit7>.json, commit7 the first 7 hex digits of `git_commit` or "nogit", so that runs
// of other arms, tables or commits never share a name. A byte outside [A-Za-z0-9._+-] (an
// export arm's path) becomes '_'.
std::string default_receipt_name(const std::string& table, const std::string& candidate,
                                 const std::vector<std::string>& baselines, const std::string& git_commit);
// A receipt exists at `out`: refused unless `force` (a --resume continues its journal and
// replaces no receipt of that run, so it passes).
void check_not_overwriting(const std::string& out, bool force, bool resume, const std::string& what);
// A path kgate will write (atomically, by rename): at most kMaxPathBytes, not a directory or
// another non-regular file, and its directory exists and is writable or can be created.
void check_output_path(const std::string& path, const std::string& what);
// A derived output (report, carryover, compare) never replaces what it was derived from: `out`
// must not be the receipt at `receipt_path` (parsed: `receipt`) nor its samples sidecar.
void check_not_the_receipt(const std::string& out, const std::string& receipt_path, const json& receipt,
                           const std::string& what);

}  // namespace kgate
