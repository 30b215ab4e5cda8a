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
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/intervals.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/verdicts.hpp"
#include "harness/export/kgate_export.h"
#include "harness/export/loader.hpp"
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

uint64_t row_seed(uint64_t run_seed, const std::string& id) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the id, mixed with the run seed
  for (unsigned char c : id) h = (h ^ c) * 1099511628211ull;
  uint64_t s = run_seed ^ h;
  return splitmix64(s);
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
           static_cast<int>(units.size()) == groups;
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

std::string sidecar_name_for(const std::string& receipt_path, const std::string& sidecar_sha) {
  std::string stem = std::filesystem::path(receipt_path).filename().string();
  if (stem.size() > 5 && stem.substr(stem.size() - 5) == ".json") stem.resize(stem.size() - 5);
  return stem + "." + sidecar_sha.substr(0, 16) + ".samples.json";
}

// The samples sidecar named by the receipt at `receipt_path`, if one is there and readable.
std::string existing_sidecar(const std::string& receipt_path) {
  try {
    if (!std::filesystem::is_regular_file(receipt_path)) return "";
    std::string why;
    std::optional<json> r = parse_json_checked(read_file(receipt_path), why);  // bounded nesting
    if (!r) return "";
    return r->at("body").at("predicate").at("samples").at("path").get<std::string>();
  } catch (const std::exception&) {
    return "";
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
                 tty ? "\r" : "", done, n, u.row + 1, plan.table.rows.size(), u.row_id.c_str(), u.group + 1,
                 plan.schedule.groups, el, eta, tty ? "" : "\n");
    std::fflush(stderr);
  }
}

}  // namespace

Plan make_plan(const RunConfig& cfg, const std::string& backend_name) {
  cfg.schedule.validate();
  Registry& reg = Registry::instance();
  Plan plan;
  plan.table = load_case_table(cfg.cases_path);
  filter_rows(plan.table, cfg.rows_filter);
  plan.family = &reg.family(plan.table.family);
  if (cfg.baselines.empty()) throw InputError("--baseline: at least one baseline is required");
  register_export_arms(cfg, plan.table.family);  // before any arm's address is taken
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
  check_accept_refusals(cfg.policy, plan.candidate, plan.baselines, "--policy");
  for (const auto& b : plan.baselines)
    if (cfg.policy.accepts_refusal(b)) plan.may_refuse.insert(b);
  plan.schedule = cfg.schedule;
  plan.warmup_min_us = cfg.warmup_min_us;
  plan.warmup_min_calls = cfg.warmup_min_calls;
  std::vector<Unit> units = plan_units(plan.table.rows.size(), cfg.schedule);
  std::map<size_t, int> seen;
  for (const Unit& u : units) {
    const CaseRow& row = plan.table.rows[u.row];
    UnitSpec s;
    s.row = u.row;
    s.row_id = row.id;
    s.group = u.group;
    s.seed = row_seed(cfg.schedule.seed, row.id);
    s.last_of_row = ++seen[u.row] == cfg.schedule.groups;
    s.letters = block_letters(cfg.schedule, u.group, u.row);
    plan.units.push_back(std::move(s));
  }
  return plan;
}

RunOutcome run_campaign(const RunConfig& cfg, Backend& backend) {
  return run_campaign(cfg, BackendFactory{}, &backend);
}

RunOutcome run_campaign(const RunConfig& cfg, const BackendFactory& make_backend, Backend* given) {
  preflight_run(cfg);  // every flag and file checked before any work (the CLI has done so too)
  std::unique_ptr<Backend> owned;
  BackendIdentity bid;
  if (given) {
    bid = identity_of(*given);
  } else if (cfg.isolate) {
    bid = identity_from_child(make_backend);
  } else {
    owned = make_backend();
    given = owned.get();
    bid = identity_of(*given);
  }
  const Plan plan = make_plan(cfg, bid.name);
  std::fprintf(stderr, "[kgate] %s: %s vs %s, %zu rows of %s (%s backend, %s timer)\n", cfg.out_path.c_str(),
               cfg.candidate.c_str(), cfg.baselines.front().c_str(), plan.table.rows.size(), cfg.cases_path.c_str(),
               bid.name.c_str(), bid.timer.c_str());

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
  json arms = json::array();
  for (const auto& a : plan.arms) arms.push_back(arm_json(a));
  json row_ids = json::array();
  for (const auto& r : plan.table.rows) row_ids.push_back(r.id);

  // Everything that must match for a resumed run to continue this one.
  json run_identity = {{"cases_sha256", plan.table.sha256},
                       {"rows", row_ids},
                       {"arms", arms},
                       {"protocol", protocol},
                       {"backend", bid.name},
                       {"binary_sha256", self_binary_sha256()}};
  std::string identity_digest = sha256_hex(canonicalize(run_identity));
  const std::string journal_path = cfg.out_path + ".journal";
  std::map<std::string, RowState> state;
  size_t resumed_units = 0;
  std::optional<Journal> journal;
  if (cfg.resume) {
    std::vector<UnitResult> done;
    journal.emplace(Journal::resume(journal_path, identity_digest, &done));
    for (const auto& u : done) apply_unit(state, u);
    resumed_units = done.size();
  } else {
    auto parent = std::filesystem::path(cfg.out_path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    journal.emplace(Journal::create(journal_path, json{{"kind", "header"},
                                                       {"identity_sha256", identity_digest},
                                                       {"identity", run_identity},
                                                       {"started_utc", utc_now()}}));
  }

  std::unique_ptr<Executor> executor;
  InProcessExecutor* in_process = nullptr;
  if (cfg.isolate) {
    executor = std::make_unique<IsolatedExecutor>(plan, make_backend);
  } else {
    auto e = std::make_unique<InProcessExecutor>(plan, *given);
    in_process = e.get();
    executor = std::move(e);
  }
  if (cfg.wrap_executor) executor = cfg.wrap_executor(std::move(executor));

  const bool tty = ::isatty(STDERR_FILENO);
  auto t0 = std::chrono::steady_clock::now();
  size_t done = 0;
  for (const UnitSpec& planned : plan.units) {
    progress(cfg, plan, ++done, planned, t0, tty);
    RowState& st = state[planned.row_id];
    if (st.done(plan.schedule.groups) || st.units.count(planned.group)) continue;
    UnitSpec spec = planned;
    spec.check = !st.check.has_value();
    UnitResult u = executor->run_unit(spec);
    journal->append(u);
    apply_unit(state, u);
    if (state[planned.row_id].done(plan.schedule.groups)) executor->drop_row(planned.row_id);
  }
  if (!cfg.quiet && tty) std::fprintf(stderr, "\n");
  auto t1 = std::chrono::steady_clock::now();

  // Assemble the rows from the journal state, then derive every statistic and verdict.
  DeriveContext dctx;
  if (bid.environment.contains("gpus") && !bid.environment["gpus"].empty())
    dctx.max_sm_clock_mhz = bid.environment["gpus"][0].value("max_sm_clock_mhz", 0.0);
  for (const auto& a : plan.arms) dctx.declared_kernels[a.name] = a.impl->kernel_names;
  dctx.blocks = cfg.schedule.blocks;
  dctx.seed = cfg.schedule.seed;
  std::vector<RowRecord> rows;
  json sample_rows = json::object();
  for (const auto& r : plan.table.rows) {
    const RowState& st = state[r.id];
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
    if (!st.error.empty()) {
      row.disposition = Disposition::failed;
      row.error = st.error;
    } else if (row.disposition == Disposition::passed && static_cast<int>(st.units.size()) != plan.schedule.groups) {
      row.disposition = Disposition::failed;
      row.error = "missing timing units";
    }
    std::optional<RowSamples> samples;
    if (row.disposition == Disposition::passed) {
      samples = assemble_samples(st, plan.baselines.size());
      sample_rows[r.id] = to_json(*samples);
    }
    derive_row(row, samples ? &*samples : nullptr, cfg.policy, dctx);
    rows.push_back(std::move(row));
  }
  Summary summary = derive_summary(rows);

  json pred;
  pred["tool"] = {{"name", "kgate"},
                  {"version", KGATE_VERSION},
                  {"git_commit", built_git_commit()},
                  {"binary_sha256", self_binary_sha256()}};
  pred["backend"] = bid.name;
  pred["timer"] = bid.timer;
  pred["environment"] = bid.environment;
  pred["protocol"] = protocol;
  pred["cases"] = {{"path", cfg.cases_path},
                   {"sha256", plan.table.sha256},
                   {"table", plan.table.name},
                   {"family", plan.table.family},
                   {"rows_filter", cfg.rows_filter}};
  pred["arms"] = arms;
  pred["policy"] = cfg.policy.to_json();
  pred["rows"] = json::array();
  for (const auto& row : rows) pred["rows"].push_back(to_json(row));
  pred["summary"] = to_json(summary);
  pred["run"] = {{"finished_utc", utc_now()},
                 {"wall_s_this_process", std::chrono::duration<double>(t1 - t0).count()},
                 {"resumed_units", resumed_units},
                 {"units", plan.units.size()}};

  json sidecar = {
      {"schema", kSamplesSchema}, {"unit", "us"}, {"facts_sha256", facts_digest(pred)}, {"rows", sample_rows}};
  const std::string sidecar_bytes = canonicalize(sidecar) + "\n";
  const std::string sidecar_sha = sha256_hex(sidecar_bytes);
  const std::string sidecar_name = sidecar_name_for(cfg.out_path, sidecar_sha);
  pred["samples"] = {{"path", sidecar_name}, {"sha256", sidecar_sha}};

  json subject = json::array();
  subject.push_back({{"name", "kgate"}, {"digest", {{"sha256", self_binary_sha256()}}}});
  subject.push_back({{"name", cfg.cases_path}, {"digest", {{"sha256", plan.table.sha256}}}});
  std::set<std::string> seen_src;
  for (const auto& a : arms)
    for (const auto& s : a["sources"])
      if (seen_src.insert(s["path"]).second) {
        json subj = {{"name", s["path"]}, {"digest", {{"sha256", s["sha256"]}}}};
        if (s.contains("kind")) subj["annotations"] = {{"kgate.kind", s["kind"]}, {"kgate.size", s["size"]}};
        subject.push_back(std::move(subj));
      }
  // The protocol subject (KGATE_PROTOCOL_SOURCES, CMakeLists.txt), once for the whole receipt.
  for (const auto& p : protocol_sources(bid.name))
    if (seen_src.insert(p).second) subject.push_back({{"name", p}, {"digest", {{"sha256", built_source_sha256(p)}}}});
  subject.push_back({{"name", kPolicySubject}, {"digest", {{"sha256", sha256_hex(canonicalize(pred["policy"]))}}}});
  subject.push_back({{"name", sidecar_name}, {"digest", {{"sha256", sidecar_sha}}}});
  json body = {{"_type", "https://in-toto.io/Statement/v1"},
               {"subject", subject},
               {"predicateType", kPredicateType},
               {"predicate", pred}};
  json receipt = seal_receipt(body, cfg.sign_key);

  // The pair changes together: the sidecar is written under a new name (its digest), then the
  // receipt replaces the old one in one rename; only then does the old receipt's sidecar go. A
  // kill at any point leaves a receipt and the sidecar it names.
  const auto dir = std::filesystem::path(cfg.out_path).parent_path();
  const std::string previous = existing_sidecar(cfg.out_path);
  write_file_atomic((dir / sidecar_name).string(), sidecar_bytes);
  if (cfg.after_sidecar_written) cfg.after_sidecar_written();
  write_file_atomic(cfg.out_path, receipt_bytes(receipt));
  if (!previous.empty() && previous != sidecar_name && previous.find('/') == std::string::npos) {
    std::error_code ec;
    std::filesystem::remove(dir / previous, ec);
  }
  journal->finish();

  RunOutcome o;
  o.receipt_path = cfg.out_path;
  o.summary = summary;
  o.policy_passed = summary.policy_failed == 0;
  if (in_process) o.phases = in_process->phases();
  return o;
}

}  // namespace kgate
