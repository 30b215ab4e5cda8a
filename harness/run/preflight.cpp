#include "harness/run/preflight.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "harness/core/cases.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"

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

void check_output_path(const std::string& path, const std::string& what) {
  check_length(path, what);
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
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(what + " " + printable(path) + ": directory " + printable(dir.string()) + " is not writable");
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

void preflight_run(const RunConfig& cfg, const std::string& backend_name) {
  // Sizes and values first: they need no file.
  const ScheduleConfig& s = cfg.schedule;
  check_int("--groups", s.groups, 1, kMaxGroups);
  check_int("--blocks", s.blocks, 2, kMaxBlocks);
  if (s.blocks % 2) throw InputError("--blocks: must be even (equal ABBA and BAAB), got " + std::to_string(s.blocks));
  check_int("--m", s.m, 1, kMaxM);
  s.validate();  // the seed's bound
  if (!std::isfinite(cfg.warmup_min_us) || cfg.warmup_min_us < 0 || cfg.warmup_min_us > kMaxWarmupUs)
    throw InputError("--warmup-us: must be a finite number in [0, 1e9] microseconds");
  check_int("--warmup-calls", cfg.warmup_min_calls, 0, kMaxWarmupCalls);
  Policy::from_json(cfg.policy.to_json(), "--policy");  // a programmatic policy is held to the same rules
  if (cfg.candidate.empty()) throw InputError("--candidate: empty");
  if (cfg.baselines.empty()) throw InputError("--baseline: at least one baseline is required");
  auto registered = [](const std::string& name, const char* flag) {
    if (is_export_name(name)) return;  // loaded once the table's family is known (below)
    try {
      Registry::instance().impl(name);
    } catch (const InputError& e) {
      throw InputError(std::string(flag) + ": " + e.what());
    }
  };
  registered(cfg.candidate, "--candidate");
  for (const auto& b : cfg.baselines) registered(b, "--baseline");
  // Files.
  check_input_file(cfg.cases_path, "--cases");
  check_output_path(cfg.out_path, "--out");
  // The samples sidecar is a new file beside --out (its name carries its digest): --out's check covers it.
  check_output_path(cfg.out_path + ".journal", "--out (journal)");
  if (cfg.sign_key) {
    check_input_file(*cfg.sign_key, "--sign");
    ed25519_public_pem_from_private(*cfg.sign_key);  // throws InputError unless an Ed25519 private key
  }
  // The table itself (read only) and the size of the schedule it implies.
  CaseTable t = load_case_table(cfg.cases_path);
  filter_rows(t, cfg.rows_filter);
  register_export_arms(cfg, t.family);
  check_world_size(cfg, t, backend_name);
  double samples = double(s.groups) * s.blocks * s.m * double(t.rows.size()) * double(cfg.baselines.size());
  if (samples > kMaxScheduledSamples)
    throw InputError("--groups x --blocks x --m x rows x baselines = " +
                     std::to_string(static_cast<long long>(samples)) + " samples per arm; refusing more than 1e8");
  // The arms against the table and the backend: make_plan's own checks, once the schedule is
  // known to be of a sane size (the plan holds every unit's sample letters).
  if (!backend_name.empty()) make_plan(cfg, backend_name);
}

}  // namespace kgate
