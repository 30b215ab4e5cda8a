#include "harness/run/campaign.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>

#include "harness/core/artifacts.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/intervals.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/text.hpp"
#include "harness/core/verdicts.hpp"
#include "harness/export/kgate_export.h"
#include "harness/run/journal.hpp"
#include "harness/run/preflight.hpp"

namespace kgate {

namespace {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

json arm_json(const PlanArm& a) {
  json src = json::array();
  for (const auto& p : a.impl->sources) src.push_back({{"path", p}, {"sha256", built_source_sha256(p)}});
  json j = {{"name", a.name},
            {"role", a.role},
            {"registered_role", a.impl->role},
            {"backend", a.impl->backend},
            {"archs", a.impl->archs},
            {"kernel_names", a.impl->kernel_names},
            {"sources", src}};
  if (const auto& lib = a.impl->library) {
    // Hashed when it was loaded, by this process: the bytes this run mapped, not a build's.
    // Named by its portable identity (file name, sha256, manifest): never the path it was loaded from.
    j["sources"].push_back(
        {{"path", lib->file}, {"sha256", lib->sha256}, {"size", lib->size}, {"kind", kExportLibraryKind}});
    j["export"] = {{"library", lib->file},
                   {"arm", lib->arm},
                   {"abi_version", KGATE_EXPORT_ABI_VERSION},
                   {"manifest", lib->manifest.empty() ? json(nullptr) : json(lib->manifest)}};
  }
  return j;
}

namespace {

// Everything the journal knows about one row.
struct RowState {
  std::optional<RowCheck> check;
  std::map<int, std::vector<RankResult>> units;  // group -> ranks
  std::string error;
  bool done(int groups) const {
    return !error.empty() || (check && check->disposition != Disposition::passed) ||
           static_cast<int>(units.size()) == groups || !failed_call().empty();
  }
  // The first failed verified call of its units (group order, then rank order), "" when none.
  std::string failed_call() const {
    for (const auto& [g, ranks] : units)
      for (const auto& rk : ranks)
        for (const auto& [arm, p] : rk.proof)
          if (p.failed) return (ranks.size() > 1 ? "rank " + std::to_string(rk.rank) + ": " : "") + p.first_failure;
    return "";
  }
};

void apply_unit(std::map<std::string, RowState>& state, const UnitResult& u) {
  RowState& st = state[u.row_id];
  if (u.check) st.check = u.check;
  if (!u.error.empty()) st.error = u.error;
  if (u.timed()) st.units[u.group] = u.ranks;
}

// Per call of `arm`, the length of the union of every rank's intervals of that call (us): the
// cross-device union on the one CUPTI clock of the process (rank threads; rank processes on
// different nodes do not share a clock, the value then means little). Empty unless there are
// several ranks and every rank has intervals for every call.
std::vector<double> cross_device_union_us(const std::vector<RankResult>& ranks, const std::string& arm) {
  if (ranks.size() < 2) return {};
  size_t calls = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    auto it = ranks[r].side.find(arm);
    if (it == ranks[r].side.end() || it->second.intervals_ns.empty()) return {};
    if (r == 0)
      calls = it->second.intervals_ns.size();
    else if (it->second.intervals_ns.size() != calls)
      return {};
  }
  std::vector<double> out;
  for (size_t c = 0; c < calls; ++c) {
    std::vector<Interval> iv;
    for (const auto& rk : ranks) SideSeries::append_intervals(rk.side.at(arm).intervals_ns[c], rk.rank, iv);
    out.push_back(static_cast<double>(union_length(iv)) / 1000.0);
  }
  return out;
}

// Per sample, the maximum over ranks (the slowest rank decides); side series from rank 0, and the
// cross-device union of every rank's calls.
RowSamples assemble_samples(const RowState& st, size_t pairs) {
  RowSamples s;
  s.baseline.resize(pairs);
  s.candidate.resize(pairs);
  for (const auto& [g, ranks] : st.units) {
    s.world_size = static_cast<int>(ranks.size());
    for (size_t p = 0; p < pairs; ++p) {
      for (int side = 0; side < 2; ++side) {
        std::vector<double> v = side ? ranks[0].candidate.at(p) : ranks[0].baseline.at(p);
        for (size_t r = 1; r < ranks.size(); ++r) {
          const auto& o = side ? ranks[r].candidate.at(p) : ranks[r].baseline.at(p);
          for (size_t i = 0; i < v.size() && i < o.size(); ++i) v[i] = std::max(v[i], o[i]);
        }
        if (v.empty()) continue;  // a refused baseline's pair: no groups at all
        (side ? s.candidate : s.baseline)[p].push_back(std::move(v));
      }
    }
    for (const auto& [arm, series] : ranks[0].side) {
      SideSeries& d = s.side[arm];
      d.events_us.insert(d.events_us.end(), series.events_us.begin(), series.events_us.end());
      d.self_us.insert(d.self_us.end(), series.self_us.begin(), series.self_us.end());
      d.sm_clock_mhz.insert(d.sm_clock_mhz.end(), series.sm_clock_mhz.begin(), series.sm_clock_mhz.end());
      d.activity_us.insert(d.activity_us.end(), series.activity_us.begin(), series.activity_us.end());
      const std::vector<double> u = cross_device_union_us(ranks, arm);
      d.cross_device_us.insert(d.cross_device_us.end(), u.begin(), u.end());
    }
    for (const auto& rk : ranks)
      for (const auto& [arm, counts] : rk.signatures) merge_signature_counts(s.signatures[arm], counts);
  }
  return s;
}

std::string receipt_stem(const std::string& receipt_path) {
  std::string stem = std::filesystem::path(receipt_path).filename().string();
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
  return stem;
}

std::string sidecar_name_for(const std::string& receipt_path, const std::string& sidecar_sha) {
  return receipt_stem(receipt_path) + "." + sidecar_sha.substr(0, 16) + ".samples.json";
}

// Every sidecar kgate wrote for the receipt at `receipt_path` but `keep`: a file (not a link)
// beside it named <stem>.<16 hex>.samples.json whose bytes' sha256 begins with those 16 hex. The
// old receipt's samples.path is never trusted as a name to delete; a killed run's orphan goes
// too, as does the temporary of a sidecar write that a kill cut short.
void remove_other_sidecars(const std::string& receipt_path, const std::string& keep) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(receipt_path).parent_path().empty() ? "." : fs::path(receipt_path).parent_path();
  const std::string stem = receipt_stem(receipt_path);
  const std::string suffix = ".samples.json";
  const size_t sidecar_size = stem.size() + 1 + 16 + suffix.size();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > sidecar_size && name.starts_with(stem + ".") &&
        name.compare(sidecar_size - suffix.size(), suffix.size() + 5, suffix + ".tmp.") == 0)
      remove_stale_temporaries((dir / name.substr(0, sidecar_size)).string());  // a sidecar's write, killed
    if (name == keep || name.size() != sidecar_size || !name.starts_with(stem + ".") || !name.ends_with(suffix) ||
        !e.is_regular_file(ec) || e.is_symlink(ec))
      continue;
    const std::string hex = name.substr(stem.size() + 1, 16);
    if (hex.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    try {
      if (sha256_file_hex(e.path().string()).compare(0, 16, hex) == 0) fs::remove(e.path(), ec);
    } catch (const std::exception&) {
      // unreadable: not provably kgate's own; left alone
    }
  }
}

void progress(const RunConfig& cfg, const Plan& plan, size_t done, const UnitSpec& u,
              std::chrono::steady_clock::time_point t0, bool tty) {
  if (cfg.quiet) return;
  // On a terminal one line rewritten in place; in a log, a line every ~10 % of the units.
  const size_t n = plan.units.size();
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double eta = done > 1 ? el / static_cast<double>(done - 1) * static_cast<double>(n - done + 1) : 0;
  size_t step = std::max<size_t>(1, n / 10);
  if (tty || done == 1 || done % step == 0 || done == n) {
    std::fprintf(stderr, "%s[kgate] unit %zu/%zu  row %zu/%zu %-28.28s group %d/%d  elapsed %.1fs  eta %.0fs   %s",
                 tty ? "\r" : "", done, n, u.row + 1, plan.table.rows.size(), terminal(u.row_id, 120).c_str(),
                 u.group + 1, plan.schedule.groups, el, eta, tty ? "" : "\n");
    std::fflush(stderr);
  }
}

// The backend the campaign runs on: its identity, and the backend itself unless every unit runs
// in a child process (--isolate: the parent never opens the device).
struct OpenedBackend {
  std::unique_ptr<Backend> owned;
  Backend* backend = nullptr;
  BackendIdentity id;
};

OpenedBackend open_backend(const RunConfig& cfg, const BackendFactory& make_backend, Backend* given) {
  OpenedBackend b;
  if (given) {
    b.backend = given;
    b.id = identity_of(*given);
  } else if (cfg.isolate) {
    b.id = identity_from_child(make_backend);
  } else {
    b.owned = make_backend();
    b.backend = b.owned.get();
    b.id = identity_of(*b.backend);
  }
  return b;
}

// ---- plan: the preflighted plan as the journal and the receipt name it ----------------------

struct CampaignPlan {
  Plan plan;
  BackendIdentity backend;
  json protocol, arms;
  json identity;  // everything that must match for a resumed run to continue this one
  std::string identity_sha256;
};

json protocol_json(const RunConfig& cfg, const BackendIdentity& bid) {
  json protocol = bid.protocol;
  protocol["schema_version"] = kProtocolSchemaVersion;
  protocol["timer"] = bid.timer;
  protocol["isolate"] = cfg.isolate;
  protocol["groups"] = cfg.schedule.groups;
  protocol["blocks"] = cfg.schedule.blocks;
  protocol["m"] = cfg.schedule.m;
  protocol["seed"] = cfg.schedule.seed;
  protocol["warmup_min_us"] = cfg.warmup_min_us;
  protocol["warmup_min_calls"] = cfg.warmup_min_calls;
  protocol["pairing"] = "ABBA/BAAB counterbalanced, equal counts per group";
  protocol["interval"] = to_json(IntervalSpec{});
  protocol["device_arch"] = bid.arch;
  protocol["proof"] = {
      {"input_sets", cfg.proof.input_sets}, {"verified_share", cfg.proof.verified_share}, {"rule", kProofRule}};
  return protocol;
}

CampaignPlan plan_campaign(const PreflightedRun& run, const BackendIdentity& bid) {
  const RunConfig& cfg = run.cfg;
  CampaignPlan c{plan_for_backend(run, bid.name), bid, protocol_json(cfg, bid), json::array(), nullptr, ""};
  if (!cfg.quiet)
    std::fprintf(stderr, "[kgate] %s: %s vs %s, %zu rows of %s (%s backend, %s timer)\n",
                 terminal(cfg.out_path).c_str(), terminal(cfg.candidate).c_str(),
                 terminal(cfg.baselines.front()).c_str(), c.plan.table.rows.size(), terminal(cfg.cases_path).c_str(),
                 bid.name.c_str(), bid.timer.c_str());
  for (const auto& a : c.plan.arms) c.arms.push_back(arm_json(a));
  json row_ids = json::array();
  for (const auto& r : c.plan.table.rows) row_ids.push_back(r.id);
  c.identity = {{"cases_sha256", c.plan.table.sha256},
                {"rows", row_ids},
                {"arms", c.arms},
                {"protocol", c.protocol},
                {"backend", bid.name},
                {"binary_sha256", self_binary_sha256()}};
  c.identity_sha256 = sha256_hex(canonicalize(c.identity));
  return c;
}

// ---- execute: every unit not yet in the journal, journalled as it finishes ------------------

// What the units gave, and what the run holds until its receipt is sealed: the executor (declared
// last, released first), then the journal and its lock.
struct Executed {
  std::map<std::string, RowState> state;
  size_t resumed_units = 0;
  double wall_s = 0;        // this process's units
  std::string started_utc;  // when this process started its units
  PhaseTimes phases;        // this process's units (with --isolate, their children's)
  std::optional<Journal> journal;
  std::unique_ptr<Executor> executor;
};

// A fresh journal under the run's identity, or a killed run's journal and the units it holds.
void open_journal(const RunConfig& cfg, const CampaignPlan& c, Executed& ex) {
  const std::string journal_path = cfg.out_path + ".journal";
  const json header = {{"kind", "header"},
                       {"identity_sha256", c.identity_sha256},
                       {"identity", c.identity},
                       {"machine", machine_identity(c.backend.environment)},
                       {"started_utc", utc_now()}};
  if (cfg.resume) {
    std::vector<UnitResult> done;
    ex.journal.emplace(Journal::resume(journal_path, header, &done));
    for (const auto& u : done) apply_unit(ex.state, u);
    ex.resumed_units = done.size();
    return;
  }
  auto parent = std::filesystem::path(cfg.out_path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  ex.journal.emplace(Journal::create(journal_path, header));
}

// The executor: each unit in a child process (--isolate) or in this one, then the rank runner
// or a test's wrapper around it. `phases`: the phase times of the executor made here.
std::unique_ptr<Executor> make_executor(const RunConfig& cfg, const Plan& plan, Backend* backend,
                                        const BackendFactory& make_backend, const PhaseTimes*& phases) {
  std::unique_ptr<Executor> executor;
  if (cfg.isolate) {
    std::optional<std::chrono::milliseconds> timeout;
    if (cfg.unit_timeout_s > 0) timeout = std::chrono::milliseconds(static_cast<int64_t>(cfg.unit_timeout_s * 1000));
    auto e = std::make_unique<IsolatedExecutor>(plan, make_backend, timeout);
    phases = &e->phases();
    executor = std::move(e);
  } else {
    auto e = std::make_unique<InProcessExecutor>(plan, *backend);
    phases = &e->phases();
    executor = std::move(e);
  }
  if (cfg.wrap_executor) executor = cfg.wrap_executor(std::move(executor));
  return executor;
}

Executed execute(const RunConfig& cfg, const CampaignPlan& c, Backend* backend, const BackendFactory& make_backend) {
  const Plan& plan = c.plan;
  Executed ex;
  open_journal(cfg, c, ex);
  const PhaseTimes* phases = nullptr;
  ex.executor = make_executor(cfg, plan, backend, make_backend, phases);
  ex.started_utc = utc_now();
  const bool tty = ::isatty(STDERR_FILENO);
  auto t0 = std::chrono::steady_clock::now();
  size_t done = 0;
  for (const UnitSpec& planned : plan.units) {
    progress(cfg, plan, ++done, planned, t0, tty);
    RowState& st = ex.state[planned.row_id];
    if (st.done(plan.schedule.groups) || st.units.count(planned.group)) continue;
    UnitSpec spec = planned;
    spec.check = !st.check.has_value();
    UnitResult u = ex.executor->run_unit(spec);
    ex.journal->append(u);
    apply_unit(ex.state, u);
    if (ex.state[planned.row_id].done(plan.schedule.groups)) ex.executor->drop_row(planned.row_id);
  }
  if (!cfg.quiet && tty) std::fprintf(stderr, "\n");
  ex.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ex.phases = *phases;
  return ex;
}

// ---- assemble: the rows from the journal state, then every statistic and verdict ------------

struct Assembled {
  std::vector<RowRecord> rows;
  Summary summary;
  json sample_rows = json::object();  // the sidecar's rows: the samples of every measured row
};

DeriveContext derive_context(const RunConfig& cfg, const CampaignPlan& c) {
  DeriveContext dctx;
  const json& env = c.backend.environment;
  if (env.contains("gpus") && !env["gpus"].empty())
    dctx.max_sm_clock_mhz = env["gpus"][0].value("max_sm_clock_mhz", 0.0);
  for (const auto& a : c.plan.arms) dctx.declared_kernels[a.name] = a.impl->kernel_names;
  dctx.blocks = cfg.schedule.blocks;
  dctx.seed = cfg.schedule.seed;
  return dctx;
}

// A row's timed-call proof: its seeds and checks per seed, and per arm its units' proofs summed
// over groups and ranks. None for a row never checked (refused before its check, or failed).
std::optional<RowProof> row_proof(const Plan& plan, const RowState& st) {
  if (!st.check || st.check->seeds.empty()) return std::nullopt;
  RowProof p;
  p.input_sets = plan.proof.input_sets;
  p.seeds = st.check->seeds;
  for (const auto& [arm, checks] : st.check->seed_checks) p.arms[arm].checks = checks;
  for (const auto& [g, ranks] : st.units)
    for (const auto& rk : ranks)
      for (const auto& [arm, c] : rk.proof) p.arms[arm].calls.add(c);
  return p;
}

// A row's recorded facts: its case, its check's outcome, its timed calls' proof, and a failure
// where its units did not all come back.
RowRecord row_facts(const Plan& plan, const CaseRow& r, const RowState& st) {
  RowRecord row;
  row.id = r.id;
  row.family = r.family;
  row.params = r.params;
  for (auto it = r.tags.begin(); it != r.tags.end(); ++it) row.tags[it.key()] = it.value().get<std::string>();
  row.tolerance = r.tolerance;
  if (plan.family->work) row.work = plan.family->work(r.params);
  for (const auto& b : plan.baselines) row.pairs.push_back({b, plan.candidate, {}, {}, {}, {}, {}, {}, {}});
  if (st.check) {
    row.correctness = st.check->checks;
    row.config = st.check->configs;
    row.refused = st.check->refused;
    row.disposition = st.check->disposition;
    if (!st.check->error.empty()) row.error = st.check->error;
  }
  row.proof = row_proof(plan, st);
  if (const std::string failed = st.failed_call(); !failed.empty() && row.disposition == Disposition::passed) {
    row.disposition = Disposition::incorrect;
    row.error = failed;
  }
  if (!st.error.empty()) {
    row.disposition = Disposition::failed;
    row.error = st.error;
  } else if (row.disposition == Disposition::passed && static_cast<int>(st.units.size()) != plan.schedule.groups) {
    row.disposition = Disposition::failed;
    row.error = "missing timing units";
  }
  return row;
}

Assembled assemble(const RunConfig& cfg, const CampaignPlan& c, Executed& ex) {
  const DeriveContext dctx = derive_context(cfg, c);
  Assembled a;
  for (const auto& r : c.plan.table.rows) {
    const RowState& st = ex.state[r.id];
    RowRecord row = row_facts(c.plan, r, st);
    std::optional<RowSamples> samples;
    if (row.disposition == Disposition::passed) {
      samples = assemble_samples(st, c.plan.baselines.size());
      a.sample_rows[r.id] = to_json(*samples);
    }
    derive_row(row, samples ? &*samples : nullptr, cfg.policy, dctx);
    a.rows.push_back(std::move(row));
  }
  a.summary = derive_summary(a.rows);
  return a;
}

// ---- seal: the predicate, its sidecar and subjects, sealed, then the pair written -----------

json predicate(const RunConfig& cfg, const CampaignPlan& c, const Executed& ex, const Assembled& a) {
  json pred;
  pred["tool"] = {{"name", "kgate"},
                  {"version", KGATE_VERSION},
                  {"git_commit", built_git_commit()},
                  {"binary_sha256", self_binary_sha256()}};
  pred["backend"] = c.backend.name;
  pred["timer"] = c.backend.timer;
  pred["environment"] = c.backend.environment;
  pred["protocol"] = c.protocol;
  pred["cases"] = {{"path", cfg.cases_path},
                   {"sha256", c.plan.table.sha256},
                   {"table", c.plan.table.name},
                   {"family", c.plan.table.family},
                   {"rows_filter", cfg.rows_filter}};
  if (!c.plan.table.sweep.empty()) pred["cases"]["sweep"] = c.plan.table.sweep;  // tables without one: no key
  pred["arms"] = c.arms;
  pred["policy"] = cfg.policy.to_json();
  pred["rows"] = json::array();
  for (const auto& row : a.rows) pred["rows"].push_back(to_json(row));
  pred["summary"] = to_json(a.summary);
  pred["run"] = {{"started_utc", ex.started_utc},
                 {"finished_utc", utc_now()},
                 {"wall_s_this_process", ex.wall_s},
                 {"phases_s",
                  {{"prepare", ex.phases.prepare_s},
                   {"check", ex.phases.check_s},
                   {"warmup", ex.phases.warmup_s},
                   {"timing", ex.phases.timing_s},
                   {"proof", ex.phases.proof_s()},
                   {"proof_parts",
                    {{"inputs", ex.phases.proof_inputs_s},
                     {"checks", ex.phases.proof_checks_s},
                     {"verified", ex.phases.proof_verified_s}}}}},
                 {"resumed_units", ex.resumed_units},
                 {"units", c.plan.units.size()}};
  return pred;
}

// The statement's subjects: the binary, the case table, every arm source once, the protocol's
// sources, the policy and the sidecar.
json subjects(const RunConfig& cfg, const CampaignPlan& c, const json& pred) {
  json subject = json::array();
  subject.push_back({{"name", "kgate"}, {"digest", {{"sha256", self_binary_sha256()}}}});
  subject.push_back({{"name", cfg.cases_path}, {"digest", {{"sha256", c.plan.table.sha256}}}});
  std::set<std::string> seen_src;
  for (const auto& a : c.arms)
    for (const auto& s : a["sources"])
      if (seen_src.insert(s["path"]).second) {
        json subj = {{"name", s["path"]}, {"digest", {{"sha256", s["sha256"]}}}};
        if (s.contains("kind")) subj["annotations"] = {{"kgate.kind", s["kind"]}, {"kgate.size", s["size"]}};
        subject.push_back(std::move(subj));
      }
  // The protocol subject (KGATE_PROTOCOL_SOURCES, CMakeLists.txt), once for the whole receipt.
  for (const auto& p : protocol_sources(c.backend.name))
    if (seen_src.insert(p).second) subject.push_back({{"name", p}, {"digest", {{"sha256", built_source_sha256(p)}}}});
  subject.push_back({{"name", kPolicySubject}, {"digest", {{"sha256", sha256_hex(canonicalize(pred["policy"]))}}}});
  const json& samples = pred["samples"];
  subject.push_back({{"name", samples["path"]}, {"digest", {{"sha256", samples["sha256"]}}}});
  return subject;
}

// The pair changes together: the sidecar is written under a new name (its digest), then the
// receipt replaces the old one in one rename; only then do the old receipt's sidecar and any a
// killed run left go. A kill at any point leaves a receipt and the sidecar it names.
void write_pair(const RunConfig& cfg, const std::string& sidecar_name, const std::string& sidecar_bytes,
                const json& receipt) {
  const auto dir = std::filesystem::path(cfg.out_path).parent_path();
  write_file_atomic((dir / sidecar_name).string(), sidecar_bytes);
  if (cfg.after_sidecar_written) cfg.after_sidecar_written();
  write_file_atomic(cfg.out_path, receipt_bytes(receipt));
  remove_other_sidecars(cfg.out_path, sidecar_name);
}

void seal(const PreflightedRun& run, const CampaignPlan& c, const Executed& ex, const Assembled& a) {
  const RunConfig& cfg = run.cfg;
  json pred = predicate(cfg, c, ex, a);
  json sidecar = {
      {"schema", kSamplesSchema}, {"unit", "us"}, {"facts_sha256", facts_digest(pred)}, {"rows", a.sample_rows}};
  const std::string sidecar_bytes = canonicalize(sidecar) + "\n";
  const std::string sidecar_sha = sha256_hex(sidecar_bytes);
  const std::string sidecar_name = sidecar_name_for(cfg.out_path, sidecar_sha);
  pred["samples"] = {{"path", sidecar_name}, {"sha256", sidecar_sha}};
  json body = {{"_type", "https://in-toto.io/Statement/v1"},
               {"subject", subjects(cfg, c, pred)},
               {"predicateType", kPredicateType},
               {"predicate", pred}};
  write_pair(cfg, sidecar_name, sidecar_bytes, seal_receipt(body, run.sign_key));
}

}  // namespace

RunOutcome run_campaign(const PreflightedRun& run, const BackendFactory& make_backend, Backend* given) {
  OpenedBackend be = open_backend(run.cfg, make_backend, given);
  const CampaignPlan campaign = plan_campaign(run, be.id);
  Executed ex = execute(run.cfg, campaign, be.backend, make_backend);
  const Assembled assembled = assemble(run.cfg, campaign, ex);
  seal(run, campaign, ex, assembled);
  ex.journal->finish();
  RunOutcome o;
  o.receipt_path = run.cfg.out_path;
  o.summary = assembled.summary;
  o.policy_passed = assembled.summary.policy_failed == 0;
  o.phases = ex.phases;
  return o;
}

RunOutcome run_campaign(const RunConfig& cfg, const BackendFactory& make_backend, Backend* given) {
  // Every flag and file checked before the backend is opened; its arms against the backend once
  // it is (plan_for_backend).
  return run_campaign(preflight_run(cfg), make_backend, given);
}

RunOutcome run_campaign(const RunConfig& cfg, Backend& backend) {
  return run_campaign(cfg, BackendFactory{}, &backend);
}

}  // namespace kgate
