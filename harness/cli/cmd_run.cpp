#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "harness/cli/common.hpp"
#include "harness/core/artifacts.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/gates.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"
#include "harness/run/preflight.hpp"
#include "harness/run/ranks.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::cli {
namespace {

// An arm as the run names it from here on: an export arm is loaded here, where the table's
// family is known, and goes by its portable name (export:<file>:<arm>) in the plan, the policy
// and the receipt.
std::string portable_arm(const std::string& name, const std::string& family, const char* flag) {
  if (!is_export_name(name)) return name;
  try {
    return load_export_arm(Registry::instance(), name, family).name;
  } catch (const InputError& e) {
    throw InputError(std::string(flag) + ": " + e.what());
  }
}

// The receipt's path: --out, or the default name under --out-dir; rank r > 0 of a rank-process
// job writes beside rank 0's. An existing receipt is refused without --force.
std::string receipt_path(const RunOpts& o, const std::string& table, const RunConfig& c, std::string out) {
  if (out.empty()) {
    out = o.out_dir + "/" + default_receipt_name(table, c.candidate, c.baselines, built_git_commit());
    check_output_path(out, "--out");
  }
  if (!o.rendezvous.empty() && o.env.rank > 0) {  // every rank seals the merged rows; rank 0 at --out
    const std::string stem = out.size() > 5 && out.ends_with(".json") ? out.substr(0, out.size() - 5) : out;
    out = stem + ".rank" + std::to_string(o.env.rank) + ".json";
    check_output_path(out, "--out (rank " + std::to_string(o.env.rank) + ")");
  }
  check_not_overwriting(out, o.force, o.resume, "--out");
  return out;
}

// The run's policy (a receipt's recorded one for rerun), its by_baseline keys naming baselines of
// this run.
Policy run_policy(const RunOpts& o, const std::string& policy, const std::vector<std::string>& baselines,
                  const std::string& bases) {
  Policy p = o.recorded_policy ? *o.recorded_policy : Policy::parse(policy);
  portable_by_baseline(p);
  // `sanitized` is judged from a statement made after the receipt: a run cannot hold it.
  if (std::find(p.gates.begin(), p.gates.end(), "sanitized") != p.gates.end())
    throw InputError(
        "--policy: 'sanitized' is judged from a sanitize statement beside a receipt (kgate sanitize R, "
        "then kgate gate R --policy ...,sanitized), not by a run");
  for (const auto& [name, g] : p.by_baseline)
    if (std::find(baselines.begin(), baselines.end(), name) == baselines.end())
      throw InputError("--policy: by_baseline names " + quoted(name) + ", which is not a --baseline of this run (" +
                       printable(bases) + ")" + did_you_mean(name, baselines));
  return p;
}

// The run's values as flags give them: rows, signing key, schedule, warm-up, progress, isolation
// and ranks.
void set_run_values(const RunOpts& o, RunConfig& c) {
  c.rows_filter = o.rows;
  c.resume = o.resume;
  if (!o.sign.empty()) c.sign_key = o.sign;
  c.schedule = {o.groups, o.blocks, o.m, o.seed};
  c.warmup_min_us = o.warmup_us;
  c.warmup_min_calls = o.warmup_calls;
  c.proof.input_sets = o.input_sets;
  c.quiet = o.quiet;
  c.isolate = o.isolate;
  c.unit_timeout_s = o.unit_timeout_s;
  if (o.simulate_ranks) {
    if (o.simulate_ranks < 2 || o.simulate_ranks > 1024)
      throw InputError("--simulate-ranks: W must be in [2, 1024], got " + std::to_string(o.simulate_ranks));
    c.world_size = o.simulate_ranks;
    c.simulated = true;
  }
  if (o.gpus) c.world_size = o.gpus;
  if (!o.rendezvous.empty()) c.world_size = o.env.world_size;
}

// One campaign's configuration, preflighted against the backend it will use: every flag and file
// is checked here, before any work and before the backend is opened. An empty `out` is the
// default name under --out-dir.
PreflightedRun make_campaign(const RunOpts& o, const std::string& cases, const std::string& cand,
                             const std::string& bases, const std::string& policy, std::string out,
                             const std::string& backend_name) {
  if (!out.empty()) check_output_path(out, "--out");  // before anything echoes or opens it
  check_cases_file(cases, cases_dir(), "--cases");
  CaseTable table = load_case_table(cases);  // read once: the preflight takes it from here
  RunConfig c;
  check_export_arm_backend(cand, backend_name, "--candidate", table.family);  // before any library is opened
  for (const auto& b : split_commas(bases)) check_export_arm_backend(b, backend_name, "--baseline", table.family);
  for (const auto& b : split_commas(bases)) c.baselines.push_back(portable_arm(b, table.family, "--baseline"));
  c.candidate = portable_arm(cand, table.family, "--candidate");
  c.out_path = receipt_path(o, table.name, c, std::move(out));
  c.cases_path = portable_path(cases);
  std::error_code ec;
  if (!std::filesystem::exists(c.cases_path, ec)) c.cases_path = cases;
  c.policy = run_policy(o, policy, c.baselines, bases);
  set_run_values(o, c);
  table.path = c.cases_path;  // the table as the run names it (a --rows that matches nothing says so)
  return preflight_run(c, backend_name, std::move(table));
}

// The run's result: the summary line (stdout), or its JSON.
json run_one(const RunOpts& o, const BackendFactory& factory, Backend* backend, const PreflightedRun& run, int& rc) {
  RunOutcome r = run_campaign(run, factory, backend);
  const Summary& s = r.summary;
  rc = std::max(rc, r.policy_passed ? int(kExitOk) : int(kExitFail));
  json by_baseline = json::object();
  for (const auto& [name, b] : s.by_baseline)
    by_baseline[name] = {{"measured_rows", b.measured_rows},
                         {"geomean_ratio", b.geomean_ratio ? json(*b.geomean_ratio) : json(nullptr)},
                         {"min_ratio", b.min_ratio ? json(*b.min_ratio) : json(nullptr)},
                         {"min_ratio_row", b.min_ratio_row ? json(*b.min_ratio_row) : json(nullptr)}};
  // With --isolate, as the units' children measured them.
  const json host = {{"prepare", r.phases.prepare_s},
                     {"checks", r.phases.check_s},
                     {"warmup", r.phases.warmup_s},
                     {"samples", r.phases.timing_s},
                     {"proof", r.phases.proof_s()},
                     {"proof_parts",
                      {{"inputs", r.phases.proof_inputs_s},
                       {"checks", r.phases.proof_checks_s},
                       {"verified", r.phases.proof_verified_s}}}};
  json j = {{"receipt", r.receipt_path},
            {"rows", s.rows},
            {"policy_passed", s.policy_passed},
            {"policy_failed", s.policy_failed},
            {"passed", r.policy_passed},
            {"by_baseline", by_baseline},
            {"host_time_s", host}};
  if (o.json || o.quiet) return j;  // quiet: the receipt and the exit code say it
  std::printf("%s: %lld rows, %lld pass policy, %lld fail", terminal(r.receipt_path).c_str(),
              static_cast<long long>(s.rows), static_cast<long long>(s.policy_passed),
              static_cast<long long>(s.policy_failed));
  for (const auto& [name, b] : s.by_baseline)
    if (b.geomean_ratio)
      std::printf("; vs %s geomean %.4f, min %.4f (%s)", terminal(name).c_str(), *b.geomean_ratio, *b.min_ratio,
                  terminal(*b.min_ratio_row).c_str());
  std::printf("\n");
  std::printf(
      "host time: prepare %.1f s, correctness checks %.1f s, warm-up %.1f s, samples %.1f s, timed-call proof %.1f s "
      "(input sets %.1f, second-seed checks %.1f, verified calls %.1f)\n",
      r.phases.prepare_s, r.phases.check_s, r.phases.warmup_s, r.phases.timing_s, r.phases.proof_s(),
      r.phases.proof_inputs_s, r.phases.proof_checks_s, r.phases.proof_verified_s);
  return j;
}

// A suite entry's fields: the strings it must have, and a policy only as a string.
void check_suite_entry(const json& e, const std::string& where) {
  if (!e.is_object()) throw InputError(where + ": must be an object");
  for (const char* k : {"cases", "candidate", "baseline", "out"})
    if (!e.contains(k) || !e[k].is_string()) throw InputError(where + ": field '" + k + "': missing or not a string");
  if (e.contains("policy") && !e["policy"].is_string())
    throw InputError(where + ": field 'policy': must be a string (a gate list or a policy file)");
}

// A suite entry's receipt name: a relative path that stays under --out-dir.
std::string suite_out(const std::string& out, const std::string& where) {
  const std::filesystem::path p(out);
  bool escapes = p.empty() || p.is_absolute();
  for (const auto& part : p) escapes = escapes || part == "..";
  if (escapes)
    throw InputError(where + ": field 'out': " + quoted(out) +
                     " must be a relative path under --out-dir (no '..', not absolute)");
  return out;
}

// Every entry of the suite for `backend_name`, preflighted, before the first one runs.
std::vector<PreflightedRun> suite_campaigns(const RunOpts& o, const std::string& suite_path,
                                            const std::string& backend_name) {
  check_input_file(suite_path, "--suite");
  const std::string sp = printable(suite_path);
  json suites = parse_json_bounded(read_file(suite_path), sp);
  if (!suites.is_object() || !suites.contains(backend_name) || !suites[backend_name].is_array())
    throw InputError(sp + ": no " + quoted(backend_name) + " suite");
  std::vector<PreflightedRun> campaigns;
  std::map<std::string, size_t> outs;  // receipt path -> entry
  size_t idx = 0;
  for (const auto& e : suites[backend_name]) {
    const std::string where = sp + ": " + quoted(backend_name) + " entry " + std::to_string(idx);
    check_suite_entry(e, where);
    std::string cases = e["cases"];
    std::error_code ec;
    if (!std::filesystem::exists(cases, ec)) cases = data_root() + "/" + cases;
    const std::string out = o.out_dir + "/" + suite_out(e["out"], where);
    if (auto [it, fresh] = outs.emplace(out, idx); !fresh)
      throw InputError(where + ": field 'out': " + printable(out) + " is entry " + std::to_string(it->second) +
                       "'s too");
    try {
      campaigns.push_back(
          make_campaign(o, cases, e["candidate"], e["baseline"], e.value("policy", o.policy), out, backend_name));
    } catch (const InputError& err) {
      throw InputError(where + ": " + err.what());
    }
    ++idx;
  }
  return campaigns;
}

// --gpus / --rendezvous: opens this process's rank(s) and makes the campaign's executor the rank
// runner (c.wrap_executor); returns rank 0's (or this process's) backend.
std::unique_ptr<Backend> open_ranks(const RunOpts& o, RunConfig& c) {
#ifdef KGATE_HAVE_CUDA
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(o.rank_timeout_s * 1000));
  if (o.gpus) {
    auto backends = std::make_shared<std::vector<std::unique_ptr<Backend>>>(
        gpu::make_thread_rank_backends(o.timer, o.warm, o.gpus, timeout));
    std::unique_ptr<Backend> rank0 = std::move(backends->front());
    c.wrap_executor = [backends, c, timeout](std::unique_ptr<Executor> local) {
      std::vector<std::shared_ptr<Executor>> all{std::shared_ptr<Executor>(std::move(local))};
      for (size_t r = 1; r < backends->size(); ++r)
        all.push_back(std::make_shared<RankPlanExecutor>(c, std::move((*backends)[r])));
      return std::make_unique<RankThreadsExecutor>(all, timeout);
    };
    return rank0;
  }
  gpu::ProcessRank pr = gpu::make_process_rank_backend(o.timer, o.warm, o.rendezvous, timeout);
  // The exchange outwaits a rank's own bounded unit, so a peer's failure arrives as its error.
  auto ex = std::make_shared<ranks::FileExchange>(o.rendezvous + ".units", pr.job_key, pr.rank, pr.world_size,
                                                  2 * timeout + std::chrono::seconds(30));
  c.wrap_executor = [ex, timeout](std::unique_ptr<Executor> local) {
    return rank_process_executor(std::move(local), ex, timeout);
  };
  if (pr.rank > 0) c.quiet = true;
  return std::move(pr.backend);
#else
  (void)o;
  (void)c;
  throw InputError("--gpus/--rendezvous: this kgate was built without CUDA");
#endif
}

// --gpus / --rendezvous: flags that go with a rank runner, checked with the rest.
void check_rank_flags(RunOpts& o, const std::string& backend_name) {
  if (o.gpus && !o.rendezvous.empty()) throw InputError("--gpus and --rendezvous: one runner at a time");
  if (o.simulate_ranks) throw InputError("--simulate-ranks: plays ranks on one GPU; not with --gpus or --rendezvous");
  if (o.isolate)
    throw InputError("--isolate: not with --gpus or --rendezvous (a rank's units run in its thread or process)");
  if (o.resume && !o.rendezvous.empty())
    throw InputError("--resume: not with --rendezvous (each rank's journal may end at another unit)");
  if (o.cases.empty()) throw InputError("--gpus/--rendezvous: need --cases (a suite is not run by ranks)");
  if (o.gpus < 0 || o.gpus > 1024) throw InputError("--gpus: N must be in [1, 1024], got " + std::to_string(o.gpus));
  if (!(o.rank_timeout_s > 0 && o.rank_timeout_s <= 86400))
    throw InputError("--rank-timeout: must be in (0, 86400] seconds");
  if (backend_name != "cuda")
    throw InputError("--gpus/--rendezvous: need the cuda backend (this machine: " + backend_name + ")");
  if (!o.rendezvous.empty()) {
    o.env = ranks::rank_env_from_process();
    check_output_path(o.rendezvous, "--rendezvous");
  }
}

bool ranked(const RunOpts& o) { return o.gpus || !o.rendezvous.empty(); }

// --launch: a mode the backend has (rerun reads it from a receipt, past the flag's own check).
void check_launch(const std::string& launch, const std::string& backend_name) {
  if (std::find(kLaunchModes.begin(), kLaunchModes.end(), launch) == kLaunchModes.end())
    throw InputError("--launch: " + quoted(launch) + " is not direct or graph");
  if (launch == "graph" && backend_name != "cuda")
    throw InputError("--launch graph: needs the cuda backend (this run's is " + backend_name +
                     ", which launches every call directly)");
}

}  // namespace

PreparedRun prepare_run(RunOpts& o) {
  // The backend is named (not opened) first, so that the arms are checked against it with
  // every other flag and file; only then is the device opened and announced. With --isolate
  // the device is opened only in child processes (a forked CUDA context is unusable).
  PreparedRun p;
  if (o.out_dir.empty()) throw InputError("--out-dir: empty path (the folder for receipts; default out)");
  p.backend_name = backend_name_for(o.backend, o.isolate);
  check_launch(o.launch, p.backend_name);
  if (ranked(o)) check_rank_flags(o, p.backend_name);
  if (!o.cases.empty()) {
    if (o.candidate.empty() || o.baselines.empty())
      throw InputError("run --cases needs --candidate and --baseline (kgate list shows the arms)");
    p.campaigns.push_back(make_campaign(o, o.cases, o.candidate, o.baselines, o.policy, o.out, p.backend_name));
    return p;
  }
  if (!o.candidate.empty() || !o.baselines.empty() || !o.out.empty())
    throw InputError("--candidate/--baseline/--out need --cases (without --cases the default suite runs)");
  p.suite_path = o.suite.empty() ? data_root() + "/cases/suites.json" : o.suite;
  p.campaigns = suite_campaigns(o, p.suite_path, p.backend_name);
  return p;
}

int execute_run(const std::shared_ptr<RunOpts>& o, PreparedRun& p, json* result) {
  g_measure_peaks = !o->no_peaks;
  g_launch_mode = o->launch;
  const std::string backend_name = p.backend_name;
  BackendFactory factory = [o, backend_name] {
    return select_backend(backend_name, o->timer, o->warm, false, o->simulate_ranks);
  };
  std::unique_ptr<Backend> shared;
  if (ranked(*o))
    shared = open_ranks(*o, p.campaigns.front().cfg);
  else if (!o->isolate)
    shared = select_backend(o->backend, o->timer, o->warm, true, o->simulate_ranks);
  else if (o->backend == "auto" && backend_name == "cpu")
    std::fprintf(stderr, "kgate: no NVIDIA driver node: using the CPU backend (host timer)\n");
  int rc = kExitOk;
  json runs = json::array();
  for (const PreflightedRun& run : p.campaigns) runs.push_back(run_one(*o, factory, shared.get(), run, rc));
  if (result) {  // the caller prints it
    *result = runs;
    return rc;
  }
  if (o->json) {
    if (p.suite_path.empty())
      print_json(runs[0]);
    else
      print_json({{"suite", p.suite_path}, {"passed", rc == kExitOk}, {"runs", runs}});
  }
  return rc;
}

namespace {

// The table, the arms, the receipt and its policy and signature.
void add_campaign_flags(CLI::App* sc, RunOpts& o) {
  sc->add_option("--cases", o.cases, "case table (cases/*.json; kgate list shows them)");
  sc->add_option("--rows", o.rows, "only rows whose id matches these comma-separated globs");
  sc->add_option("--candidate", o.candidate, "candidate implementation (kgate list)");
  sc->add_option("--baseline", o.baselines,
                 "baseline implementation(s), comma-separated; each is its own ABBA pairing");
  sc->add_option("--out", o.out,
                 "receipt path (default: <out-dir>/<table>.<candidate>.vs.<baseline>[+<baseline>].<commit7>.json)");
  sc->add_option("--out-dir", o.out_dir, "directory for receipts when --out is not given")->capture_default_str();
  sc->add_flag("--force", o.force,
               "overwrite an existing receipt (without it an existing receipt is an error, exit 2)");
  sc->add_option("--policy", o.policy, "required gates: " + gate_names_text(",") + " or a JSON file")
      ->capture_default_str();
  sc->add_flag("--resume", o.resume, "continue a killed run from its journal (<out>.journal); not an overwrite");
  sc->add_option("--sign", o.sign,
                 "Ed25519 private key (PEM, from kgate keygen): seal.signature becomes a DSSE envelope (payloadType "
                 "application/vnd.in-toto+json, payload = the body's canonical bytes) with the public key")
      ->check(kSignKeyPath);
}

// The backend, the timing protocol, the suite and what is printed.
void add_protocol_flags(CLI::App* sc, RunOpts& o) {
  sc->add_option("--backend", o.backend, "auto | cpu | cuda")->capture_default_str()->check(CLI::IsMember(kBackends));
  sc->add_option("--timer", o.timer, "GPU timer: cupti | events")
      ->capture_default_str()
      ->check(CLI::IsMember({"cupti", "events"}));
  sc->add_flag("--warm", o.warm, "GPU: do not flush L2 before samples (labelled in the receipt)");
  sc->add_option("--launch", o.launch,
                 "GPU: direct | graph: graph captures each arm's call into a CUDA graph for its row and every "
                 "check, warm-up and timed call replays it (the L2 flush stays outside); recorded as protocol.launch")
      ->capture_default_str()
      ->check(CLI::IsMember(kLaunchModes));
  sc->add_option("--groups", o.groups, "groups G (drift is measured across groups)")->capture_default_str();
  sc->add_option("--blocks", o.blocks, "blocks per pair per group (even: half ABBA, half BAAB)")->capture_default_str();
  sc->add_option("--m", o.m, "samples per letter of a block")->capture_default_str();
  sc->add_option("--seed", o.seed, "run seed (row order, inputs)")->capture_default_str();
  sc->add_option("--warmup-us", o.warmup_us, "minimum warm-up work per arm per unit, microseconds")
      ->capture_default_str();
  sc->add_option("--warmup-calls", o.warmup_calls, "minimum warm-up calls per arm per unit")->capture_default_str();
  sc->add_option("--input-sets", o.input_sets,
                 "input sets K per row (>= 2): an arm's calls rotate over them, checks run on two, timed outputs "
                 "are verified against each set's oracle")
      ->capture_default_str();
  sc->add_option("--suite", o.suite, "suite file for the default run (default: cases/suites.json)");
  sc->add_flag("--quiet", o.quiet,
               "print nothing but warnings and errors: no plan, progress, summary or host-time lines (the receipt and "
               "the exit code carry the result)");
  sc->add_flag("--json", o.json,
               "the result as one JSON document on stdout (receipt, rows, pass/fail, per-baseline "
               "geomean and min); a suite: {\"suite\", \"passed\", \"runs\": [...]}. Progress stays on stderr");
  sc->add_flag("--no-peaks", o.no_peaks,
               "do not measure the device's copy bandwidth and GEMM rate for environment.peaks "
               "(recorded as null, 'not measured'; e.g. under compute-sanitizer)");
}

// Ranks (simulated, threads, processes) and isolation.
void add_rank_flags(CLI::App* sc, RunOpts& o) {
  sc->add_option("--simulate-ranks", o.simulate_ranks,
                 "play W ranks on one GPU (families with ranks: ag_gemm): the peers' shards are local buffers moved by "
                 "the copy engine, the calls the candidate makes for peer copies; every row's world_size must be W. "
                 "Receipts say so (environment.ranks.simulated): it proves the overlap schedule, not NVLink speed");
  sc->add_option("--gpus", o.gpus,
                 "N ranks as threads of this process, rank r on visible GPU r, one NCCL communicator over them; every "
                 "sample is timed on every rank and the slowest rank's time is the sample's; every row's world_size "
                 "must be N");
  sc->add_option("--rendezvous", o.rendezvous,
                 "PATH on a filesystem every rank sees: this process is one rank of a job started by srun or mpirun "
                 "(rank, world size and local rank from SLURM_*, OMPI_COMM_WORLD_* or PMI_*; GPU = local rank, or the "
                 "one GPU a task sees); "
                 "rank 0 hands out the NCCL id through PATH, units' results meet in PATH.units/; rank 0's receipt is "
                 "--out, rank r's --out with .rank<r> (the same merged rows)");
  sc->add_option("--rank-timeout", o.rank_timeout_s,
                 "seconds any rank waits for the others (communicator, a unit's results) before failing with the "
                 "ranks it waited for")
      ->capture_default_str();
  sc->add_flag("--isolate", o.isolate,
               "run each row's units in a child process: a kernel that faults (illegal address, "
               "trap) fails its row with the error recorded, and the campaign goes on");
  sc->add_option("--unit-timeout", o.unit_timeout_s,
                 "with --isolate: seconds a unit's child may run; past them it is killed (with its process group) "
                 "and its row fails with the reason recorded, and the campaign goes on (default: no limit)");
}

std::string run_footer() {
  return help_footer(
             "0 every row passed the policy, 1 a row failed it (the receipt is still written), 2 usage or input error\n"
             "(a bad flag or file, an existing receipt without --force: nothing is run or written), 3 device/runtime "
             "failure.",
             "  kgate run --cases cases/ssu.json --candidate ssu.fast --baseline ssu.baseline --policy correct,strict\n"
             "        (writes out/ssu.ssu.fast.vs.ssu.baseline.<commit7>.json)\n"
             "  kgate run --cases cases/ssu.json --candidate ssu.fast --baseline ssu.floor --policy "
             "cases/policies/ssu_floor.json\n"
             "  kgate run --cases cases/calib.json --rows 'spin-*' --candidate calib.spin --baseline calib.spin_twin\n"
             "  kgate run --backend cpu --cases cases/cpu/ssu.json --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar "
             "--json\n"
             "  kgate run --cases cases/ag_gemm_simulated.json --rows 'w8-*' --simulate-ranks 8 --candidate "
             "ag_gemm.overlap \\\n"
             "            --baseline ag_gemm.baseline,ag_gemm.floor,ag_gemm.gather   (8 ranks played on one GPU)\n"
             "  kgate run ... --resume          (same flags as the killed run)\n"
             "  kgate run ... --force           (run again onto an existing receipt)\n"
             "  kgate run --cases cases/ssu.json --candidate ssu.fast --baseline ssu.baseline,ssu.floor \\\n"
             "            --policy cases/policies/ssu.json     (one campaign: strict vs the baseline, limit vs the "
             "floor)\n"
             "  kgate run --out-dir out         (the default suite, cases/suites.json, for this machine's backend)\n") +
         "\nPolicy gates (per row; ratio = baseline median / candidate median, > 1 = candidate faster):\n" +
         gate_help_text() +
         "A JSON policy may give each baseline its own pair gates: {\"gates\": [\"correct\"], \"by_baseline\": "
         "{\"B\":\n"
         "{\"gates\": [\"limit\"], \"limit\": 0.05, \"limit_by_tag\": {\"tag=value\": 0.5}}}}; a failure then reads "
         "limit@B.\n"
         "Receipts: --out, or <out-dir>/<table>.<candidate>.vs.<baselines joined by +>.<first 7 of the git commit,\n"
         "or nogit>.json; a suite entry names its own. An existing receipt is never overwritten without --force.";
}

}  // namespace

void add_run(CLI::App& app, Action& action) {
  auto o = std::make_shared<RunOpts>();
  auto* sc =
      app.add_subcommand("run",
                         "Run a case table: correctness of every arm, then counterbalanced paired timing; "
                         "writes a sealed receipt (and its .samples.json sidecar).\n"
                         "Without --cases, runs the default suite (cases/suites.json) for this machine's backend.\n"
                         "Every flag and file (of every suite entry) is checked before the device is opened.");
  add_campaign_flags(sc, *o);
  add_protocol_flags(sc, *o);
  add_rank_flags(sc, *o);
  sc->add_flag("--check-only", o->check_only,
               "prepare every row and check every arm against the oracle, time nothing, write no receipt "
               "(what kgate sanitize runs under compute-sanitizer); exit 1 when a check fails");
  sc->add_option("--check-arm", o->check_arm, "with --check-only: check only this arm");
  sc->footer(run_footer());
  sc->callback([o, &action] {
    action = [o]() -> int {
      if (!o->check_arm.empty() && !o->check_only) throw InputError("--check-arm needs --check-only");
      PreparedRun prepared = prepare_run(*o);
      if (o->check_only) return run_check_only(*o, prepared);
      return execute_run(o, prepared);
    };
  });
}

}  // namespace kgate::cli
