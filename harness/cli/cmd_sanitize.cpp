// sanitize: re-runs a receipt's correctness calls under compute-sanitizer, one process per row,
// arm and tool (`kgate run --check-only` of that row and arm), and seals the tool's version,
// each run's error and hazard counts and each log's digest into a statement beside the receipt.
// Also `kgate run --check-only`, the correctness-only run it sanitizes.
#include <fnmatch.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "harness/cli/common.hpp"
#include "harness/core/artifacts.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/process.hpp"
#include "harness/core/statement.hpp"
#include "harness/core/text.hpp"
#include "harness/run/executor.hpp"

namespace kgate::cli {
namespace fs = std::filesystem;

namespace {

// Why `arm` refuses `row` on `backend` before its call ("" when it takes it), as a run decides.
std::string check_refusal(const PlanArm& a, const CaseRow& row, Backend& backend, RowContext* ctx) {
  if (!arch_matches(a.impl->archs, backend.arch())) return "built for " + join(a.impl->archs, " ");
  if (a.impl->supports)
    if (std::string why = a.impl->supports(row.params); !why.empty()) return why;
  return ctx ? ctx->refusal(*a.impl) : "";
}

// One row's checks: the row prepared from its run seed, each arm's one verified call.
json check_row_only(const RunOpts& o, const Plan& plan, const CaseRow& row, uint64_t seed, Backend& backend, int& rc) {
  json out = json::array();
  std::unique_ptr<RowContext> ctx;
  for (const auto& a : plan.arms) {
    if (!o.check_arm.empty() && a.name != o.check_arm) continue;
    json r = {{"row", row.id}, {"arm", a.name}};
    try {
      std::string why = check_refusal(a, row, backend, nullptr);
      if (why.empty() && !ctx) ctx = backend.prepare(*plan.family, row, seed);
      if (why.empty()) why = check_refusal(a, row, backend, ctx.get());
      if (!why.empty()) {
        r["refused"] = why;
      } else {
        const Correctness c = ctx->check(*a.impl);
        r["passed"] = c.passed;
        r["max_abs_err"] = c.max_abs_err;
        if (!c.passed) rc = kExitFail;
      }
    } catch (const InputError& e) {
      r["refused"] = e.what();
    }
    if (!o.quiet && !o.json)
      std::printf("%s %s: %s\n", printable(row.id).c_str(), printable(a.name).c_str(),
                  r.contains("refused") ? ("refused: " + printable(r["refused"].get<std::string>())).c_str()
                  : r["passed"] == true ? "passed"
                                        : "FAILED");
    out.push_back(r);
  }
  return out;
}

}  // namespace

int run_check_only(const RunOpts& o, PreparedRun& p) {
  if (!o.check_arm.empty())
    for (const PreflightedRun& run : p.campaigns) {
      const Plan plan = plan_for_backend(run, p.backend_name);
      bool known = false;
      for (const auto& a : plan.arms) known |= a.name == o.check_arm;
      if (!known) throw InputError("--check-arm: " + quoted(o.check_arm) + " is not an arm of the run");
    }
  std::unique_ptr<Backend> backend = select_backend(o.backend, o.timer, o.warm, !o.quiet);
  int rc = kExitOk;
  json checks = json::array();
  for (const PreflightedRun& run : p.campaigns) {
    const Plan plan = plan_for_backend(run, backend->name());
    for (size_t i = 0; i < plan.table.rows.size(); ++i) {
      uint64_t seed = 0;
      for (const UnitSpec& u : plan.units)
        if (u.row == i) seed = u.seed;
      for (auto& c : check_row_only(o, plan, plan.table.rows[i], seed, *backend, rc)) checks.push_back(c);
    }
  }
  if (o.json) print_json({{"check_only", true}, {"passed", rc == kExitOk}, {"checks", checks}});
  return rc;
}

namespace {

struct SanitizeOpts {
  std::string receipt, out, sign, tools = join(kSanitizerTools, ","), rows, sanitizer = "compute-sanitizer";
  bool quiet = false, json = false, per_row = false;
};

// kgate's own kernels, which are not under test: the oracle's compare and reference kernels, the
// profiler's priming kernel, and the GPU references' fill and gather kernels. compute-sanitizer
// skips them (--kernel-name-exclude kns=, a substring of the kernel's name).
const std::vector<std::string> kOwnKernels = {
    "stats_kernel",     "worst_kernel",     "tiles_kernel",       "kgate_prime_kernel", "ssu_reference_kernel",
    "fill_pool_kernel", "gather_kernel",    "q_kernel",           "softmax_kernel",     "out_kernel",
    "fill_kernel",      "to_double_kernel", "fp16_to_f32_kernel", "poison16_kernel"};

// The program on PATH (or the path given), or "" when none is executable.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "";
  for (size_t at = 0; at <= path.size();) {
    size_t end = std::min(path.find(':', at), path.size());
    const std::string dir = end > at ? path.substr(at, end - at) : ".";
    if (::access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
    at = end + 1;
  }
  return "";
}

// The `kgate run --check-only` argv of one row and arm of the receipt's recorded campaign.
std::vector<std::string> check_argv(const json& pred, const std::string& rows, const std::string& arm,
                                    const std::string& out_dir) {
  std::string candidate;
  std::vector<std::string> baselines;
  for (const auto& a : pred["arms"]) {
    if (a["role"] == "candidate")
      candidate = a["name"];
    else
      baselines.push_back(a["name"]);
  }
  std::string cases = pred["cases"]["path"];
  if (!file_exists(cases)) cases = data_root() + "/" + cases;
  const std::string backend = pred["backend"];
  std::vector<std::string> argv = {self_binary_path(),
                                   "run",
                                   "--check-only",
                                   "--check-arm",
                                   arm,
                                   "--cases",
                                   cases,
                                   "--rows",
                                   rows,
                                   "--candidate",
                                   candidate,
                                   "--baseline",
                                   join(baselines, ","),
                                   "--backend",
                                   backend,
                                   "--seed",
                                   std::to_string(pred["protocol"]["seed"].get<uint64_t>()),
                                   "--out-dir",
                                   out_dir,
                                   "--quiet",
                                   "--no-peaks"};
  // The sanitizer holds CUPTI: the check-only run needs no activity timer.
  if (backend == "cuda") argv.insert(argv.end(), {"--timer", "events"});
  return argv;
}

// One sanitizer process per tool: one arm over some rows.
struct Target {
  std::string arm;
  size_t arm_index = 0;  // in the receipt's arms
  std::vector<std::string> rows;
  std::string log_stem;  // a file name of [A-Za-z0-9._-]: "a<arm>" or "r<row>.a<arm>"
};

// The receipt's arms over the rows (filtered by --rows) whose correctness call they ran: one
// target per arm, or with per_row one per row and arm.
std::vector<Target> targets(const json& pred, const std::string& rows_filter, bool per_row) {
  std::vector<Target> out;
  const json& rows = pred["rows"];
  const std::vector<std::string> globs = split_commas(rows_filter);
  for (size_t k = 0; k < pred["arms"].size(); ++k) {
    const std::string arm = pred["arms"][k]["name"];
    Target all{arm, k, {}, "a" + std::to_string(k)};
    for (size_t i = 0; i < rows.size(); ++i) {
      const std::string id = rows[i]["id"];
      const bool match = globs.empty() || std::any_of(globs.begin(), globs.end(), [&](const std::string& g) {
                           return ::fnmatch(g.c_str(), id.c_str(), 0) == 0;
                         });
      const json& checks = rows[i]["correctness"];
      const bool checked =
          std::any_of(checks.begin(), checks.end(), [&](const json& c) { return c.value("arm", "") == arm; });
      if (!match || !checked) continue;
      if (per_row)
        out.push_back({arm, k, {id}, "r" + std::to_string(i) + ".a" + std::to_string(k)});
      else
        all.rows.push_back(id);
    }
    if (!all.rows.empty()) out.push_back(std::move(all));
  }
  return out;
}

// One run under one tool: its log beside the statement, the counts it reports.
json sanitize_one(const SanitizeOpts& o, const std::string& tool, const Target& t, const json& pred,
                  const fs::path& log_dir, const std::string& sanitizer) {
  const fs::path log = log_dir / (t.log_stem + "." + tool + ".log");
  std::vector<std::string> argv = {sanitizer, "--tool", tool, "--log-file", log.string()};
  for (const auto& k : kOwnKernels) argv.insert(argv.end(), {"--kernel-name-exclude", "kns=" + k});
  const std::vector<std::string> check = check_argv(pred, join(t.rows, ","), t.arm, (log_dir / "run").string());
  argv.insert(argv.end(), check.begin(), check.end());
  const int status = run_logged(argv, (log_dir / "output.txt").string());
  const std::string text = file_exists(log.string()) ? read_file(log.string()) : "";
  const SanitizerCounts c = parse_sanitizer_log(text);
  json r = {
      {"rows", t.rows},
      {"arm", t.arm},
      {"tool", tool},
      {"exit_code", status},
      {"errors", c.found ? json(c.errors) : json(nullptr)},
      {"hazards", c.found ? json(c.hazards) : json(nullptr)},
      {"log", {{"path", log_dir.filename().string() + "/" + log.filename().string()}, {"sha256", sha256_hex(text)}}}};
  if (!o.quiet)
    std::fprintf(stderr, "kgate sanitize: %s over %zu rows, %s: exit %d, %s\n", printable(t.arm).c_str(), t.rows.size(),
                 tool.c_str(), status,
                 c.found ? (std::to_string(c.errors) + " errors, " + std::to_string(c.hazards) + " hazards").c_str()
                         : "no summary in the log");
  return r;
}

std::vector<std::string> checked_tools(const std::string& spec) {
  std::vector<std::string> tools = split_commas(spec);
  if (tools.empty()) throw InputError("--tools: empty (known: " + join(kSanitizerTools, ",") + ")");
  for (const auto& t : tools)
    if (std::find(kSanitizerTools.begin(), kSanitizerTools.end(), t) == kSanitizerTools.end())
      throw InputError("--tools: unknown tool " + quoted(t) + " (known: " + join(kSanitizerTools, ",") + ")");
  return tools;
}

int run_sanitize(const SanitizeOpts& o) {
  const std::vector<std::string> tools = checked_tools(o.tools);
  const std::string out = statement_out(o.out, o.receipt, StatementKind::sanitize);
  std::optional<SigningKey> key;
  if (!o.sign.empty()) key = SigningKey::load(o.sign);
  const std::string sanitizer = find_program(o.sanitizer);
  if (sanitizer.empty())
    throw InputError("compute-sanitizer not found (" + printable(o.sanitizer) +
                     " on PATH; it ships with the CUDA toolkit, or give --sanitizer PATH)");
  AuditResult audited = load_audited(o.receipt);
  const json& pred = audited.receipt["body"]["predicate"];
  if (pred["backend"] == "cuda" && !gpu_available(nullptr))
    throw DeviceError(printable(o.receipt) + " was run on the cuda backend and this machine has no usable GPU");
  const std::vector<Target> todo = targets(pred, o.rows, o.per_row);
  if (todo.empty()) throw InputError(printable(o.receipt) + ": no row with a correctness call matches --rows");
  std::string version;
  run_capture({sanitizer, "--version"}, version);
  const fs::path log_dir = fs::path(out).parent_path() / (fs::path(out).stem().string() + ".logs");
  fs::remove_all(log_dir);
  fs::create_directories(log_dir);
  json runs = json::array();
  for (const Target& t : todo)
    for (const auto& tool : tools) runs.push_back(sanitize_one(o, tool, t, pred, log_dir, sanitizer));
  fs::remove_all(log_dir / "run");
  fs::remove(log_dir / "output.txt");
  json predicate = {{"sanitizer", {{"version", version}}},
                    {"backend", pred["backend"]},
                    {"tools", tools},
                    {"excluded_kernels", kOwnKernels},
                    {"runs", runs}};
  write_file_atomic(
      out, canonicalize(make_statement(StatementKind::sanitize, o.receipt, audited, predicate, {}, key)) + "\n");
  int64_t faults = 0;
  for (const auto& r : runs)
    faults += r["exit_code"] != 0 || !r["errors"].is_number() || r["errors"] != 0 || r["hazards"] != 0;
  if (o.json)
    print_json({{"statement", out}, {"runs", runs.size()}, {"clean", faults == 0}});
  else
    std::printf("%s: %zu runs (%zu processes per tool), %lld not clean\n", out.c_str(), runs.size(), todo.size(),
                static_cast<long long>(faults));
  return faults ? kExitFail : kExitOk;
}

}  // namespace

void add_sanitize(CLI::App& app, Action& action) {
  auto o = std::make_shared<SanitizeOpts>();
  auto* sc = app.add_subcommand(
      "sanitize",
      "Re-run a receipt's correctness calls (every arm of every row, no timing) under compute-sanitizer, one tool at "
      "a time, kgate's own kernels excluded, and seal the tool's version, each run's error and hazard counts and "
      "each log's digest into a statement bound to the receipt (R.sanitize.json beside R, logs in R.sanitize.logs/). "
      "kgate audit R checks it; the gate `sanitized` reads it.");
  sc->add_option("receipt", o->receipt, "receipt file")->required();
  sc->add_option("--tools", o->tools, "compute-sanitizer tools, comma-separated")->capture_default_str();
  sc->add_option("--rows", o->rows, "only rows whose id matches these comma-separated globs");
  sc->add_flag("--per-row", o->per_row,
               "one process per row, arm and tool (counts per row; default: one per arm and tool over its rows)");
  sc->add_option("--out", o->out, "statement path beside the receipt (default: R.sanitize.json)");
  sc->add_option("--sign", o->sign, "sign the statement (DSSE Ed25519) with this private key (kgate keygen)")
      ->check(kSignKeyPath);
  sc->add_option("--sanitizer", o->sanitizer, "the compute-sanitizer program")->capture_default_str();
  sc->add_flag("--quiet", o->quiet, "no line per run on stderr");
  sc->add_flag("--json", o->json, "one JSON document on stdout");
  sc->footer(help_footer(
      "0 every run clean (0 errors, 0 hazards, every call completed), 1 a run was not (the statement is written "
      "all the same) or the receipt does not audit, 2 usage error or no compute-sanitizer, 3 a cuda receipt "
      "and no GPU.",
      "  kgate sanitize out/r.json\n"
      "  kgate sanitize out/r.json --tools memcheck,racecheck --rows 'ssu-*-b1'\n"
      "  kgate gate out/r.json --policy correct,strict,sanitized\n"));
  sc->callback([o, &action] { action = [o]() -> int { return run_sanitize(*o); }; });
}

}  // namespace kgate::cli
