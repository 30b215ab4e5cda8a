#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/run/preflight.hpp"
#include "harness/core/text.hpp"

namespace kgate::cli {
namespace {

struct RunOpts {
  std::string cases, rows, candidate, baselines, out, out_dir = "out", policy = "correct", sign;
  std::string backend = "auto", timer = "cupti", suite;
  bool resume = false, warm = false, quiet = false, isolate = false;
  int groups = 3, blocks = 6, m = 2;
  uint64_t seed = 20261129;
  double warmup_us = 1000;
  int warmup_calls = 3;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  size_t a = 0;
  while (a <= s.size()) {
    size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) v.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return v;
}

// The run's configuration, preflighted: every flag and file is checked here, before any work.
RunConfig make_config(const RunOpts& o, const std::string& cases, const std::string& cand, const std::string& bases,
                      const std::string& policy, const std::string& out) {
  check_output_path(out, "--out");  // before anything echoes or opens it
  if (cases.size() > kMaxPathBytes) check_input_file(cases, "--cases");
  RunConfig c;
  c.cases_path = portable_path(cases);
  std::error_code ec;
  if (!std::filesystem::exists(c.cases_path, ec)) c.cases_path = cases;
  c.rows_filter = o.rows;
  c.candidate = cand;
  c.baselines = split(bases);
  c.out_path = out;
  c.resume = o.resume;
  if (!o.sign.empty()) c.sign_key = o.sign;
  c.policy = Policy::parse(policy);
  for (const auto& [name, g] : c.policy.by_baseline)
    if (std::find(c.baselines.begin(), c.baselines.end(), name) == c.baselines.end())
      throw InputError("--policy: by_baseline names " + quoted(name) + ", which is not a --baseline of this run (" +
                       printable(bases) + ")");
  c.schedule = {o.groups, o.blocks, o.m, o.seed};
  c.warmup_min_us = o.warmup_us;
  c.warmup_min_calls = o.warmup_calls;
  c.quiet = o.quiet;
  c.isolate = o.isolate;
  preflight_run(c);
  return c;
}

int run_one(const RunOpts& o, const BackendFactory& factory, Backend* backend, const RunConfig& c) {
  RunOutcome r = run_campaign(c, factory, backend);
  const Summary& s = r.summary;
  std::printf("%s: %lld rows, %lld pass policy, %lld fail", r.receipt_path.c_str(), static_cast<long long>(s.rows),
              static_cast<long long>(s.policy_passed), static_cast<long long>(s.policy_failed));
  for (const auto& [name, b] : s.by_baseline)
    if (b.geomean_ratio)
      std::printf("; vs %s geomean %.4f, min %.4f (%s)", name.c_str(), *b.geomean_ratio, *b.min_ratio, b.min_ratio_row->c_str());
  std::printf("\n");
  if (!o.isolate)
    std::printf("host time: prepare %.1f s, correctness checks %.1f s, warm-up %.1f s, samples %.1f s\n",
                r.phases.prepare_s, r.phases.check_s, r.phases.warmup_s, r.phases.timing_s);
  return r.policy_passed ? kExitOk : kExitFail;
}

}  // namespace

void add_run(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunOpts>();
  auto* sc = app.add_subcommand("run", "Run a case table: correctness of every arm, then counterbalanced paired timing; "
                                       "writes a sealed receipt (and its .samples.json sidecar).\n"
                                       "Without --cases, runs the default suite (cases/suites.json) for this machine's backend.");
  sc->add_option("--cases", o->cases, "case table (cases/*.json)");
  sc->add_option("--rows", o->rows, "only rows whose id matches these comma-separated globs");
  sc->add_option("--candidate", o->candidate, "candidate implementation (kgate list)");
  sc->add_option("--baseline", o->baselines, "baseline implementation(s), comma-separated; each is its own ABBA pairing");
  sc->add_option("--out", o->out, "receipt path (default: <out-dir>/<table>.<candidate>.json)");
  sc->add_option("--out-dir", o->out_dir, "directory for receipts when --out is not given")->capture_default_str();
  sc->add_option("--policy", o->policy, "required gates: correct,strict,strict_median,limit(L),drift(D),parity,fallback or a JSON file")->capture_default_str();
  sc->add_flag("--resume", o->resume, "continue a killed run from its journal (<out>.journal)");
  sc->add_option("--sign", o->sign, "Ed25519 private key (PEM) to sign the body digest (kgate keygen)");
  sc->add_option("--backend", o->backend, "auto | cpu | cuda")->capture_default_str();
  sc->add_option("--timer", o->timer, "GPU timer: cupti | events")->capture_default_str();
  sc->add_flag("--warm", o->warm, "GPU: do not flush L2 before samples (labelled in the receipt)");
  sc->add_option("--groups", o->groups, "groups G (drift is measured across groups)")->capture_default_str();
  sc->add_option("--blocks", o->blocks, "blocks per pair per group (even: half ABBA, half BAAB)")->capture_default_str();
  sc->add_option("--m", o->m, "samples per letter of a block")->capture_default_str();
  sc->add_option("--seed", o->seed, "run seed (row order, inputs)")->capture_default_str();
  sc->add_option("--warmup-us", o->warmup_us, "minimum warm-up work per arm per unit, microseconds")->capture_default_str();
  sc->add_option("--warmup-calls", o->warmup_calls, "minimum warm-up calls per arm per unit")->capture_default_str();
  sc->add_option("--suite", o->suite, "suite file for the default run (default: cases/suites.json)");
  sc->add_flag("--quiet", o->quiet, "no progress line");
  sc->add_flag("--isolate", o->isolate, "run each row's units in a child process: a kernel that faults (illegal address, "
                                        "trap) fails its row with the error recorded, and the campaign goes on");
  sc->footer(
      "Examples:\n"
      "  kgate run --cases cases/ssu.json --candidate ssu.fast --baseline ssu.baseline --policy correct,strict\n"
      "  kgate run --cases cases/ssu.json --candidate ssu.fast --baseline ssu.floor --policy cases/policies/ssu_floor.json\n"
      "  kgate run --cases cases/calib.json --rows 'spin-*' --candidate calib.spin --baseline calib.spin_twin\n"
      "  kgate run ... --resume          (same flags as the killed run)\n"
      "  kgate run --cases cases/ssu.json --candidate ssu.fast --baseline ssu.baseline,ssu.floor \\\n"
      "            --policy cases/policies/ssu.json     (one campaign: strict vs the baseline, limit vs the floor)\n"
      "Policy gates: correct (every arm matches the reference), strict (resolved faster: the lower bound of the\n"
      "ratio's 99 % interval, a bootstrap over the run's groups and ABBA blocks, is > 1), strict_median (the\n"
      "median ratio > 1: the old rule, noise passes it), limit(L) (candidate <=\n"
      "(1+L) x baseline), drift(D) (group ratios within D of the pooled ratio), parity (same activity\n"
      "signature A/L/K), fallback (no kernel outside the candidate's declared names). A JSON policy may\n"
      "give each baseline its own pair gates: {\"gates\": [\"correct\"], \"by_baseline\": {\"B\": {\"gates\":\n"
      "[\"limit\"], \"limit\": 0.05, \"limit_by_tag\": {\"tag=value\": 0.5}}}}; a failure then reads limit@B.");
  sc->callback([o, &action] {
    action = [o]() -> int {
      // With --isolate the device is opened only in child processes (a forked CUDA context is
      // unusable); the backend choice is made here without initializing it.
      std::string which = o->backend;
      if (o->isolate && which == "auto") {
        // Asking CUDA would initialize it in this (parent) process: look for the driver's node.
        which = std::filesystem::exists("/dev/nvidiactl") ? "cuda" : "cpu";
        if (which == "cpu") std::fprintf(stderr, "kgate: no NVIDIA driver node: using the CPU backend (host timer)\n");
      }
      BackendFactory factory = [o, which] { return select_backend(which, o->timer, o->warm, false); };
      // A single run's flags and files are checked before the backend is even opened.
      std::optional<RunConfig> single;
      if (!o->cases.empty()) {
        if (o->candidate.empty() || o->baselines.empty())
          throw InputError("run --cases needs --candidate and --baseline (kgate list shows the arms)");
        std::string out = o->out;
        if (out.empty()) {
          std::string stem = std::filesystem::path(o->cases).stem().string();
          out = o->out_dir + "/" + stem + "." + o->candidate + ".json";
        }
        single = make_config(*o, o->cases, o->candidate, o->baselines, o->policy, out);
      }
      std::unique_ptr<Backend> shared;
      if (!o->isolate) shared = select_backend(o->backend, o->timer, o->warm, true);
      Backend* backend = shared.get();
      const std::string backend_name = backend ? backend->name() : which;
      if (single) return run_one(*o, factory, backend, *single);
      if (!o->candidate.empty() || !o->baselines.empty() || !o->out.empty())
        throw InputError("--candidate/--baseline/--out need --cases (without --cases the default suite runs)");
      std::string suite_path = o->suite.empty() ? source_root() + "/cases/suites.json" : o->suite;
      check_input_file(suite_path, "--suite");
      const std::string sp = printable(suite_path);
      json suites = parse_json_bounded(read_file(suite_path), sp);
      if (!suites.is_object() || !suites.contains(backend_name) || !suites[backend_name].is_array())
        throw InputError(sp + ": no " + quoted(backend_name) + " suite");
      // Every entry is checked (and preflighted) before the first one runs.
      std::vector<RunConfig> configs;
      size_t idx = 0;
      for (const auto& e : suites[backend_name]) {
        const std::string where = sp + ": " + quoted(backend_name) + " entry " + std::to_string(idx++);
        if (!e.is_object()) throw InputError(where + ": must be an object");
        for (const char* k : {"cases", "candidate", "baseline", "out"})
          if (!e.contains(k) || !e[k].is_string()) throw InputError(where + ": field '" + k + "': missing or not a string");
        if (e.contains("policy") && !e["policy"].is_string())
          throw InputError(where + ": field 'policy': must be a string (a gate list or a policy file)");
        std::string cases = e["cases"];
        std::error_code ec;
        if (!std::filesystem::exists(cases, ec)) cases = source_root() + "/" + cases;
        try {
          configs.push_back(make_config(*o, cases, e["candidate"], e["baseline"], e.value("policy", o->policy),
                                        o->out_dir + "/" + e["out"].get<std::string>()));
        } catch (const InputError& err) {
          throw InputError(where + ": " + err.what());
        }
      }
      int rc = kExitOk;
      for (const RunConfig& c : configs) rc = std::max(rc, run_one(*o, factory, backend, c));
      return rc;
    };
  });
}

}  // namespace kgate::cli
