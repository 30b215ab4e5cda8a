// rerun: re-runs each receipt's recorded campaign on this machine, writes a fresh receipt, and
// prints `compare` old -> new. Every receipt is audited and every campaign preflighted before the
// first one runs.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "harness/cli/common.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/receipt.hpp"
#include "harness/report/compare.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"
#include "harness/run/preflight.hpp"

namespace kgate::cli {
namespace {
namespace fs = std::filesystem;

struct RerunOpts {
  std::vector<std::string> receipts, peers;
  std::string out_dir, policy, sign, rendezvous;
  bool replace = false, force = false, quiet = false, json = false, no_peaks = false;
  double threshold = 0.02;
};

const json& field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw InputError(where + ": no field '" + key + "'");
  return j[key];
}

// Every regular file named `file` under `dir`, at most `depth` folders down.
void find_named(const fs::path& dir, const std::string& file, int depth, std::vector<fs::path>& found) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
    if (e.is_regular_file(ec) && e.path().filename() == file)
      found.push_back(e.path());
    else if (depth > 0 && e.is_directory(ec) && !e.is_symlink(ec))
      find_named(e.path(), file, depth - 1, found);
  }
}

// export:PATH:NAME for a receipt's export arm, the library found by its recorded file name under
// --peers (the one with the recorded sha256 when several are there). A library whose bytes
// differ from the receipt's is used and said: a rebuilt peer is what a rerun re-proves.
std::string resolve_export(const json& arm, const std::vector<std::string>& peers, const std::string& where,
                           bool quiet) {
  const json& exp = field(arm, "export", where);
  const std::string file = fs::path(field(exp, "library", where).get<std::string>()).filename().string();
  const std::string name = field(exp, "arm", where).get<std::string>();
  std::string sha;
  for (const auto& s : field(arm, "sources", where))
    if (s.value("kind", "") == kExportLibraryKind) sha = s.value("sha256", "");
  std::vector<fs::path> found;
  for (const auto& d : peers) find_named(d, file, 4, found);
  if (found.empty())
    throw InputError(where + ": export library " + quoted(file) + " (sha256 " + sha.substr(0, 12) +
                     ") not found under --peers " + (peers.empty() ? "(none given)" : join(peers, ", ")) +
                     " (scripts/peers/ builds the peers; kgate export builds kgate's own arms)");
  fs::path pick = found.front();
  std::string now = sha256_file_hex(pick.string());
  for (size_t i = 1; i < found.size() && now != sha; ++i)
    if (std::string h = sha256_file_hex(found[i].string()); h == sha) pick = found[i], now = h;
  if (now != sha && !quiet)
    std::fprintf(stderr, "kgate rerun: %s: %s is not the receipt's library (sha256 %s, receipt %s): rebuilt\n",
                 terminal(where).c_str(), terminal(pick.string()).c_str(), now.substr(0, 12).c_str(),
                 terminal(sha.substr(0, 12)).c_str());
  return std::string(kExportPrefix) + pick.string() + ":" + name;
}

// The ranks a receipt's environment records (environment.ranks), as run's flags.
void recorded_ranks(const json& ranks, const RerunOpts& ro, const std::string& where, RunOpts& o) {
  const std::string runner = ranks.value("runner", "single");
  const int world = ranks.value("world_size", 1);
  if (runner == "simulated") {
    o.simulate_ranks = world;
  } else if (runner == "threads") {
    o.gpus = world;
  } else if (runner == "processes") {
    // A job of several processes is started by its launcher, each with --rendezvous; one
    // process alone needs none and meets itself in a fresh folder.
    o.rendezvous = ro.rendezvous;
    if (o.rendezvous.empty() && world == 1) {
      char tmpl[] = "/tmp/kgate-rerun-XXXXXX";
      if (!::mkdtemp(tmpl)) throw std::runtime_error("rerun: cannot make a rendezvous folder in /tmp");
      o.rendezvous = std::string(tmpl) + "/rendezvous";
    }
    if (o.rendezvous.empty())
      throw InputError(where + ": a campaign of " + std::to_string(world) +
                       " rank processes: start it with the launcher and give --rendezvous");
    o.env = ranks::rank_env_from_process();
  }
}

// The run a receipt records: table, row filter, arms, policy, protocol, isolation and ranks.
std::shared_ptr<RunOpts> recorded_run(const json& receipt, const std::string& path, const RerunOpts& ro) {
  const std::string where = printable(path);
  const json& pred = field(field(receipt, "body", where), "predicate", where);
  auto o = std::make_shared<RunOpts>();
  const json& cases = field(pred, "cases", where);
  o->cases = field(cases, "path", where).get<std::string>();
  std::error_code ec;
  if (!fs::exists(o->cases, ec)) o->cases = data_root() + "/" + o->cases;
  if (fs::exists(o->cases, ec) && sha256_file_hex(o->cases) != cases.value("sha256", "") && !ro.quiet)
    std::fprintf(stderr, "kgate rerun: %s: the case table %s changed since the receipt\n", terminal(where).c_str(),
                 terminal(o->cases).c_str());
  if (cases.contains("rows_filter") && cases["rows_filter"].is_string()) o->rows = cases["rows_filter"];
  std::vector<std::string> baselines;
  for (const auto& a : field(pred, "arms", where)) {
    const std::string role = field(a, "role", where).get<std::string>();
    std::string name = field(a, "name", where).get<std::string>();
    if (a.contains("export") && a["export"].is_object()) name = resolve_export(a, ro.peers, where, ro.quiet);
    if (role == "candidate")
      o->candidate = name;
    else
      baselines.push_back(name);
  }
  o->baselines = join(baselines, ",");
  if (ro.policy.empty())
    o->recorded_policy = Policy::from_json(field(pred, "policy", where), where + ": policy");
  else
    o->policy = ro.policy;
  const json& proto = field(pred, "protocol", where);
  o->groups = field(proto, "groups", where).get<int>();
  o->blocks = field(proto, "blocks", where).get<int>();
  o->m = field(proto, "m", where).get<int>();
  o->seed = field(proto, "seed", where).get<uint64_t>();
  o->warmup_calls = proto.value("warmup_min_calls", o->warmup_calls);
  o->warmup_us = proto.value("warmup_min_us", o->warmup_us);
  if (proto.contains("proof") && proto["proof"].is_object())
    o->input_sets = proto["proof"].value("input_sets", o->input_sets);
  o->isolate = proto.value("isolate", false);
  o->warm = !proto.value("cold_l2", true);
  o->launch = proto.value("launch", "direct");  // absent: a receipt from before --launch (audited: a string)
  o->backend = field(pred, "backend", where).get<std::string>();
  if (const std::string timer = pred.value("timer", "cupti"); timer == "cupti" || timer == "events") o->timer = timer;
  const json& env = field(pred, "environment", where);
  if (env.contains("ranks") && env["ranks"].is_object()) recorded_ranks(env["ranks"], ro, where, *o);
  const fs::path p(path);
  if (ro.replace)
    o->out = path;
  else if (!ro.out_dir.empty())
    o->out = (fs::path(ro.out_dir) / p.filename()).string();
  else
    o->out = (p.parent_path() / (p.stem().string() + ".rerun.json")).string();
  o->force = ro.force || ro.replace;
  o->quiet = ro.quiet;
  o->sign = ro.sign;
  o->no_peaks = ro.no_peaks;
  return o;
}

// A receipt to re-run: the old one's view, and its campaign as run will run it, preflighted.
struct RerunJob {
  std::string path;
  ReportView old_view;
  std::shared_ptr<RunOpts> opts;
  PreparedRun prepared;
};

// Every receipt audited and every campaign preflighted before the first sample.
std::vector<RerunJob> prepare_jobs(const RerunOpts& ro) {
  std::vector<RerunJob> jobs;
  std::map<std::string, std::string> outs;
  for (const auto& r : ro.receipts) {
    if (r.ends_with(".samples.json")) continue;  // a sidecar, named by a folder's glob beside its receipt
    const AuditResult audited = load_audited(r);
    auto o = recorded_run(audited.receipt, r, ro);
    PreparedRun prepared;
    try {
      prepared = prepare_run(*o);
    } catch (const InputError& e) {
      throw InputError(printable(r) + ": " + e.what());
    }
    if (auto [it, fresh] = outs.emplace(fs::weakly_canonical(o->out).string(), r); !fresh)
      throw InputError(printable(r) + " and " + printable(it->second) + " would both be rerun into " +
                       printable(o->out));
    jobs.push_back({r, report_view(audited.receipt, r), std::move(o), std::move(prepared)});
  }
  return jobs;
}

int run_rerun(const RerunOpts& ro) {
  if (ro.replace && !ro.out_dir.empty()) throw InputError("--replace and --out-dir: one place for the new receipts");
  CompareRule rule;
  rule.threshold = ro.threshold;
  check_compare_rule(rule);
  for (const auto& d : ro.peers) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) throw InputError("--peers " + printable(d) + ": not a directory");
  }
  std::vector<RerunJob> jobs = prepare_jobs(ro);
  int rc = kExitOk;
  json results = json::array();
  for (size_t i = 0; i < jobs.size(); ++i) {
    RerunJob& j = jobs[i];
    if (!ro.quiet)
      std::fprintf(stderr, "kgate rerun: [%zu/%zu] %s -> %s\n", i + 1, jobs.size(), terminal(j.path).c_str(),
                   terminal(j.opts->out).c_str());
    j.opts->json = ro.json;  // the run's summary joins rerun's JSON instead of printing
    json run;
    const int run_rc = execute_run(j.opts, j.prepared, ro.json ? &run : nullptr);
    rc = std::max(rc, run_rc);
    const ReportView fresh = report_view(load_audited(j.opts->out).receipt, j.opts->out);
    const CompareResult c = compare_receipts(j.old_view, fresh, rule);
    if (ro.json) {
      results.push_back({{"receipt", j.path},
                         {"rerun", j.opts->out},
                         {"run_exit", run_rc},
                         {"run", run.empty() ? json(nullptr) : run[0]},
                         {"compare", json::parse(compare_json(c))}});
    } else {
      std::printf("%s\n", compare_markdown(c).c_str());
    }
  }
  if (ro.json) print_json(results);
  return rc;
}

}  // namespace

void add_rerun(CLI::App& app, Action& action) {
  auto o = std::make_shared<RerunOpts>();
  auto* sc = app.add_subcommand(
      "rerun",
      "Re-run each receipt's recorded campaign on this machine (its table and row filter, candidate, baselines, "
      "policy, protocol, isolation and ranks), write a fresh receipt, and print `kgate compare` old -> new.\n"
      "Every receipt is audited and every campaign checked before the first one runs. Export arms are found by the "
      "file name the receipt records, under --peers (the library with the recorded sha256 first; a rebuilt one is "
      "used and said).");
  sc->add_option("receipts", o->receipts, "receipts to re-run")->required();
  sc->add_option("--peers", o->peers, "folder holding export libraries (searched 4 levels down; repeatable)");
  sc->add_option("--out-dir", o->out_dir,
                 "write each new receipt here under its old file name "
                 "(default: beside it, as <name>.rerun.json)");
  sc->add_flag("--replace", o->replace, "write each new receipt over the old one (its old sidecar goes with it)");
  sc->add_flag("--force", o->force, "overwrite an existing receipt at the new receipt's path");
  sc->add_option("--policy", o->policy,
                 "judge the new receipts by this policy instead of the recorded one "
                 "(a gate list or a JSON policy file)");
  sc->add_option("--sign", o->sign, "Ed25519 private key: sign the new receipts (kgate run --sign)")
      ->check(kSignKeyPath);
  sc->add_option("--rendezvous", o->rendezvous,
                 "for a campaign of several rank processes: this process's "
                 "rendezvous path (kgate run --rendezvous)");
  sc->add_option("--threshold", o->threshold, "compare's T (kgate compare --help)")->capture_default_str();
  sc->add_flag("--no-peaks", o->no_peaks, "do not measure the device's peaks (kgate run --no-peaks)");
  sc->add_flag("--quiet", o->quiet, "no progress lines");
  sc->add_flag("--json", o->json, "one JSON document: per receipt its rerun's path, exit code and compare");
  sc->footer(help_footer(
      "0 every new receipt passes its policy, 1 one does not (the receipts are still written), 2 "
      "usage or input error (nothing is run), 3 device/runtime failure.",
      "  kgate rerun receipts/sm_90/h100/ssu_fast_vs_baseline.json            (-> ..._baseline.rerun.json)\n"
      "  kgate rerun receipts/sm_90/h100/*.json --peers build-peers --replace\n"
      "  kgate rerun old/*.json --out-dir receipts/sm_90/h200 --peers /tmp/peers\n"));
  sc->callback([o, &action] { action = [o]() -> int { return run_rerun(*o); }; });
}

}  // namespace kgate::cli
