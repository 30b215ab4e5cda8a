#include "harness/run/preflight.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "harness/core/cases.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"
#include "harness/run/journal.hpp"

namespace kgate {
namespace fs = std::filesystem;

static void check_length(const std::string& path, const std::string& what) {
  if (path.empty()) throw InputError(what + ": empty path");
  if (path.size() > kMaxPathBytes)
    throw InputError(what + ": path of " + std::to_string(path.size()) + " bytes (at most " +
                     std::to_string(kMaxPathBytes) + ")");
}

void check_input_file(const std::string& path, const std::string& what) {
  check_length(path, what);
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (!fs::exists(st)) throw InputError(what + " " + printable(path) + ": no such file");
  if (!fs::is_regular_file(st)) throw InputError(what + " " + printable(path) + ": not a regular file");
  if (!std::ifstream(path, std::ios::binary)) throw InputError(what + " " + printable(path) + ": cannot read");
}

// Spelled as the user would type them from here: relative to the working directory when
// under it, absolute otherwise.
static std::string as_typed(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(p), ec);
  fs::path rel = abs.lexically_relative(fs::current_path(ec));
  return !rel.empty() && *rel.begin() != ".." ? rel.string() : abs.string();
}

void check_cases_file(const std::string& path, const std::string& cases_dir, const std::string& what) {
  std::error_code ec;
  if (path.size() > kMaxPathBytes || fs::exists(path, ec)) return check_input_file(path, what);
  // Candidates: the tables in the directory the path names or, when that directory is missing
  // (mistyped), in its siblings; then every table under the cases directory.
  std::vector<std::string> known;
  auto tables_in = [&](const fs::path& dir) {
    for (const auto& e : fs::directory_iterator(dir.empty() ? "." : dir, ec))
      if (e.path().extension() == ".json") known.push_back((dir / e.path().filename()).string());
  };
  const fs::path dir = fs::path(path).parent_path(), up = dir.parent_path();
  if (fs::is_directory(dir.empty() ? "." : dir, ec))
    tables_in(dir);
  else if (!dir.empty() && fs::is_directory(up.empty() ? "." : up, ec))
    for (const auto& e : fs::directory_iterator(up.empty() ? "." : up, ec))
      if (e.is_directory(ec)) tables_in(up / e.path().filename());
  for (const auto& t : find_case_tables(cases_dir)) known.push_back(as_typed(t));
  throw InputError(what + " " + printable(path) + ": no such file" + did_you_mean_path(path, known));
}

std::string default_receipt_name(const std::string& table, const std::string& candidate,
                                 const std::vector<std::string>& baselines, const std::string& git_commit) {
  const bool hex = git_commit.size() >= 7 && std::all_of(git_commit.begin(), git_commit.begin() + 7, [](char c) {
                     return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
                   });
  std::string name = table + "." + candidate + ".vs.";
  for (size_t i = 0; i < baselines.size(); ++i) name += (i ? "+" : "") + baselines[i];
  name += "." + (hex ? git_commit.substr(0, 7) : std::string("nogit"));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '+' && c != '-') c = '_';
  return name + ".json";
}

void check_not_overwriting(const std::string& out, bool force, bool resume, const std::string& what) {
  std::error_code ec;
  if (force || resume || !fs::exists(out, ec)) return;
  throw InputError(what + " " + printable(out) + ": a receipt exists there; pass --force to overwrite it");
}

// Whether a file can be made in `dir`: an unnamed one (O_TMPFILE) where the filesystem has them,
// else a named probe removed at once. access() alone passes /proc and read-only mounts for root.
static bool can_create_in(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    const fs::path probe = dir / (".kgate-probe." + std::to_string(::getpid()));
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) ::unlink(probe.c_str());
  }
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

void check_output_path(const std::string& path, const std::string& what) {
  check_length(path, what);
  const std::string name = fs::path(path).filename().string();
  if (name.empty() || name == "." || name == "..")
    throw InputError(what + " " + printable(path) + ": names a directory, not a file (give the file's name)");
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (fs::is_directory(st)) throw InputError(what + " " + printable(path) + ": is a directory");
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(what + " " + printable(path) + ": exists and is not a regular file; not replacing it");
  // The nearest existing ancestor must be a writable directory (the rest is created).
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  while (!fs::exists(fs::status(dir, ec)) && dir.has_parent_path() && dir.parent_path() != dir) dir = dir.parent_path();
  if (!fs::exists(fs::status(dir, ec))) dir = ".";
  if (!fs::is_directory(fs::status(dir, ec)))
    throw InputError(what + " " + printable(path) + ": " + printable(dir.string()) + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0 || !can_create_in(dir))
    throw InputError(what + " " + printable(path) + ": directory " + printable(dir.string()) + " is not writable");
}

void check_export_arm_backend(const std::string& arm, const std::string& backend_name, const char* flag,
                              const std::string& family) {
  if (!is_export_name(arm) || backend_name != "cpu") return;
  if (const Family* f = Registry::instance().find_family(family); f && f->host_exports) return;
  throw InputError(std::string(flag) + " " + quoted(arm) + ": an export arm of family " + quoted(family) +
                   " runs on the cuda backend, but this run uses the " + backend_name +
                   " backend (the library was not opened; use --backend cuda on a GPU; host exports run on the cpu "
                   "backend in a family that takes them, such as tensor)");
}

void check_policy_backend(const Policy& policy, const std::string& backend_name) {
  if (backend_name != "cpu") return;
  // Only the GPU timer records a call's activity (kernel launches and their names).
  static const std::vector<std::string> kActivityGates = {"parity", "fallback"};
  auto check = [&](const GateSet& g, const std::string& where) {
    for (const auto& name : g.gates)
      if (std::find(kActivityGates.begin(), kActivityGates.end(), name) != kActivityGates.end())
        throw InputError("--policy" + where + ": gate " + quoted(name) +
                         " judges the kernels a call launches, which only the cuda backend records; this run uses "
                         "the " +
                         backend_name + " backend");
  };
  check(policy, "");
  for (const auto& [baseline, g] : policy.by_baseline) check(g, ": by_baseline." + quoted(baseline));
}

void check_not_the_receipt(const std::string& out, const std::string& receipt_path, const json& receipt,
                           const std::string& what) {
  if (out.empty()) return;
  for (const std::string& in : {receipt_path, sidecar_path_of(receipt_path, receipt)}) {
    std::error_code ec;
    if (fs::equivalent(out, in, ec))
      throw InputError(what + " " + printable(out) + ": is " + printable(in) + ", an input of this command; not " +
                       "overwriting it");
  }
}

void register_export_arms(const RunConfig& cfg, const std::string& family) {
  auto load = [&](const std::string& name, const char* flag) {
    if (!is_export_name(name)) return;
    try {
      load_export_arm(Registry::instance(), name, family);
    } catch (const InputError& e) {
      throw InputError(std::string(flag) + ": " + e.what());
    }
  };
  load(cfg.candidate, "--candidate");
  for (const auto& b : cfg.baselines) load(b, "--baseline");
}

static void check_int(const char* flag, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    throw InputError(std::string(flag) + ": " + std::to_string(v) + " out of range [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
}

void check_world_size(const RunConfig& cfg, const CaseTable& t, const std::string& backend_name) {
  const char* flag = cfg.simulated ? "--simulate-ranks" : "world size";
  if (backend_name.empty()) return;  // no backend named: make_plan's caller checks with one
  if (backend_name != "cuda") {
    // The CPU backend plays every row's ranks in one process; ranks are a GPU matter.
    if (cfg.simulated || cfg.world_size != 1)
      throw InputError(std::string(flag) + ": needs the cuda backend (the CPU arms play every rank in one process)");
    return;
  }
  const Family& fam = Registry::instance().family(t.family);
  const bool ranked =
      std::any_of(fam.params.begin(), fam.params.end(), [](const ParamSpec& p) { return p.name == "world_size"; });
  if (!ranked) {
    if (cfg.world_size != 1 || cfg.simulated)
      throw InputError(std::string(flag) + ": family " + quoted(t.family) + " has no ranks (no world_size parameter)");
    return;
  }
  for (const CaseRow& r : t.rows) {
    const int64_t w = r.params.at("world_size").get<int64_t>();
    if (w != cfg.world_size)
      throw InputError(std::string(flag) + ": row " + quoted(r.id) + " has world_size " + std::to_string(w) +
                       ", this run " + std::to_string(cfg.world_size) +
                       (cfg.simulated ? "" : " (--simulate-ranks W plays W ranks on one GPU)") +
                       "; --rows picks the rows of one world size");
  }
}

// Sizes and values: they need no file.
static void check_values(const RunConfig& cfg) {
  const ScheduleConfig& s = cfg.schedule;
  check_int("--groups", s.groups, 1, kMaxGroups);
  check_int("--blocks", s.blocks, 2, kMaxBlocks);
  if (s.blocks % 2) throw InputError("--blocks: must be even (equal ABBA and BAAB), got " + std::to_string(s.blocks));
  check_int("--m", s.m, 1, kMaxM);
  s.validate();  // the seed's bound
  if (!std::isfinite(cfg.warmup_min_us) || cfg.warmup_min_us < 0 || cfg.warmup_min_us > kMaxWarmupUs)
    throw InputError("--warmup-us: must be a finite number in [0, 1e9] microseconds");
  check_int("--warmup-calls", cfg.warmup_min_calls, 0, kMaxWarmupCalls);
  check_int("--input-sets", cfg.proof.input_sets, 2, kMaxInputSets);
  if (!(cfg.proof.verified_share > 0 && cfg.proof.verified_share <= 1))
    throw InputError("verified share: must be in (0, 1]");
  if (cfg.unit_timeout_s != 0 && !cfg.isolate)
    throw InputError("--unit-timeout: needs --isolate (only a unit in a child process can be stopped)");
  if (!std::isfinite(cfg.unit_timeout_s) || cfg.unit_timeout_s < 0 || cfg.unit_timeout_s > kMaxUnitTimeoutS)
    throw InputError("--unit-timeout: must be a number of seconds in (0, 86400]");
  Policy::from_json(cfg.policy.to_json(), "--policy");  // a programmatic policy is held to the same rules
  if (cfg.candidate.empty()) throw InputError("--candidate: empty");
  if (cfg.baselines.empty()) throw InputError("--baseline: at least one baseline is required");
  auto registered = [](const std::string& name, const char* flag) {
    if (is_export_name(name)) return;  // loaded once the table's family is known
    try {
      Registry::instance().impl(name);
    } catch (const InputError& e) {
      throw InputError(std::string(flag) + ": " + e.what());
    }
  };
  registered(cfg.candidate, "--candidate");
  for (const auto& b : cfg.baselines) registered(b, "--baseline");
}

// The files the run reads and writes, and the signing key, loaded once.
static std::optional<SigningKey> check_files(const RunConfig& cfg) {
  check_input_file(cfg.cases_path, "--cases");
  check_output_path(cfg.out_path, "--out");
  // The samples sidecar is a new file beside --out (its name carries its digest): --out's check covers it.
  check_output_path(cfg.out_path + ".journal", "--out (journal)");
  Journal::preflight(cfg.out_path + ".journal", cfg.resume);
  if (!cfg.sign_key) return std::nullopt;
  check_input_file(*cfg.sign_key, "--sign");
  return SigningKey::load(*cfg.sign_key);  // throws InputError unless an Ed25519 private key
}

static void check_schedule_size(const RunConfig& cfg, const CaseTable& t) {
  const ScheduleConfig& s = cfg.schedule;
  double samples = double(s.groups) * s.blocks * s.m * double(t.rows.size()) * double(cfg.baselines.size());
  if (samples > kMaxScheduledSamples)
    throw InputError("--groups x --blocks x --m x rows x baselines = " +
                     std::to_string(static_cast<long long>(samples)) + " samples per arm; refusing more than 1e8");
}

static uint64_t row_seed(uint64_t run_seed, const std::string& id) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the id, mixed with the run seed
  for (unsigned char c : id) h = (h ^ c) * 1099511628211ull;
  uint64_t s = run_seed ^ h;
  return splitmix64(s);
}

// Every unit of the plan's rows in schedule order, each with its row's seed and sample letters.
static std::vector<UnitSpec> plan_unit_specs(const Plan& plan) {
  const ScheduleConfig& sched = plan.schedule;
  std::vector<UnitSpec> specs;
  std::map<size_t, int> seen;
  for (const Unit& u : plan_units(plan.table.rows.size(), sched)) {
    const CaseRow& row = plan.table.rows[u.row];
    UnitSpec s;
    s.row = u.row;
    s.row_id = row.id;
    s.group = u.group;
    s.seed = row_seed(sched.seed, row.id);
    s.last_of_row = ++seen[u.row] == sched.groups;
    s.letters = block_letters(sched, u.group, u.row);
    specs.push_back(std::move(s));
  }
  return specs;
}

// A family whose oracle is an arm (Family::reference_param): every row's reference is one of the
// run's arms, so the receipt records its library among the arms' subjects.
static void check_reference_arms(const Plan& plan, const std::string& cases_path) {
  const std::string& key = plan.family->reference_param;
  if (key.empty()) return;
  std::vector<std::string> names;
  for (const auto& a : plan.arms) names.push_back(a.name);
  for (const CaseRow& r : plan.table.rows) {
    const std::string ref = portable_export_name(r.params.at(key).get<std::string>());
    if (std::find(names.begin(), names.end(), ref) == names.end())
      throw InputError(printable(cases_path) + ": row " + quoted(r.id) + ": params." + key + " " + quoted(ref) +
                       " is not an arm of this run (" + join(names, ", ") +
                       "): name it as a --baseline, so its library is recorded with the receipt");
  }
}

// The plan of a run over a table already read and filtered (its export arms loaded): the arms
// checked against the table's family and the backend, then every unit.
static Plan plan_from_table(const RunConfig& cfg, CaseTable table, const std::string& backend_name) {
  Registry& reg = Registry::instance();
  Plan plan;
  plan.table = std::move(table);
  plan.family = &reg.family(plan.table.family);
  if (cfg.baselines.empty()) throw InputError("--baseline: at least one baseline is required");
  auto add_arm = [&](const std::string& name, const std::string& role, const char* flag) {
    const Implementation& im = reg.impl(name);
    if (im.family != plan.table.family)
      throw InputError(std::string(flag) + " " + name + ": family '" + im.family + "' but " + cfg.cases_path +
                       " is a '" + plan.table.family + "' table");
    if (im.backend != backend_name)
      throw InputError(std::string(flag) + " " + name + ": a " + im.backend +
                       " implementation, but this run uses the " + backend_name +
                       " backend (use --backend or choose a " + backend_name + " arm; kgate list)");
    for (const auto& a : plan.arms)
      if (a.name == name) throw InputError(std::string(flag) + " " + name + ": arm named twice");
    plan.arms.push_back({name, role, &im});
  };
  // An export arm goes by its portable name (export:<file>:<arm>) in the plan and the receipt,
  // however the configuration spelled its path.
  plan.candidate = portable_export_name(cfg.candidate);
  for (const auto& b : cfg.baselines) plan.baselines.push_back(portable_export_name(b));
  add_arm(plan.candidate, "candidate", "--candidate");
  for (const auto& b : plan.baselines) add_arm(b, "baseline", "--baseline");
  check_reference_arms(plan, cfg.cases_path);
  check_accept_refusals(cfg.policy, plan.candidate, plan.baselines, "--policy");
  for (const auto& b : plan.baselines)
    if (cfg.policy.accepts_refusal(b)) plan.may_refuse.insert(b);
  plan.schedule = cfg.schedule;
  plan.proof = cfg.proof;
  plan.warmup_min_us = cfg.warmup_min_us;
  plan.warmup_min_calls = cfg.warmup_min_calls;
  plan.units = plan_unit_specs(plan);
  return plan;
}

Plan make_plan(const RunConfig& cfg, const std::string& backend_name) {
  cfg.schedule.validate();
  CaseTable t = load_case_table(cfg.cases_path);
  filter_rows(t, cfg.rows_filter);
  register_export_arms(cfg, t.family);  // before any arm's address is taken
  return plan_from_table(cfg, std::move(t), backend_name);
}

Plan plan_for_backend(const PreflightedRun& run, const std::string& backend_name) {
  if (run.backend == backend_name) return run.plan;
  return plan_from_table(run.cfg, run.plan.table, backend_name);
}

PreflightedRun preflight_run(const RunConfig& cfg, const std::string& backend_name, std::optional<CaseTable> table) {
  check_values(cfg);
  PreflightedRun run{cfg, {}, backend_name, check_files(cfg)};
  // The table itself (read only) and the size of the schedule it implies.
  CaseTable t = table ? std::move(*table) : load_case_table(cfg.cases_path);
  filter_rows(t, cfg.rows_filter);
  check_policy_backend(cfg.policy, backend_name);
  check_export_arm_backend(cfg.candidate, backend_name, "--candidate", t.family);
  for (const auto& b : cfg.baselines) check_export_arm_backend(b, backend_name, "--baseline", t.family);
  register_export_arms(cfg, t.family);
  check_world_size(cfg, t, backend_name);
  check_schedule_size(cfg, t);
  // The arms against the table and the backend, once the schedule is known to be of a sane size
  // (the plan holds every unit's sample letters).
  if (backend_name.empty())
    run.plan.table = std::move(t);
  else
    run.plan = plan_from_table(cfg, std::move(t), backend_name);
  return run;
}

}  // namespace kgate
