#include "harness/run/campaign.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "harness/core/artifacts.hpp"
#include "harness/core/compare.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

json Correctness::to_json(const std::string& arm) const {
  return json{{"arm", arm},           {"passed", passed},       {"max_abs_err", max_abs_err},
              {"max_rel_err", max_rel_err}, {"worst", worst},   {"worst_out", worst_out},
              {"worst_ref", worst_ref}, {"elements", elements}, {"mismatches", mismatches},
              {"nonfinite", nonfinite}, {"unwritten", unwritten}, {"note", note}};
}

Correctness compare_outputs(const std::vector<double>& out, const std::vector<double>& ref,
                            const std::vector<bool>& unwritten, const Tolerance& tol,
                            const std::function<std::string(size_t)>& coords) {
  return compare_elements(
      out.size(), [&](size_t i) { return out[i]; }, [&](size_t i) { return ref[i]; },
      [&](size_t i) { return !unwritten.empty() && unwritten[i]; }, tol, coords);
}

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

json arm_json(const Implementation& impl, const std::string& role) {
  json src = json::array();
  for (const auto& p : impl.sources) src.push_back({{"path", p}, {"sha256", built_source_sha256(p)}});
  return json{{"name", impl.name}, {"role", role}, {"backend", impl.backend},
              {"archs", impl.archs}, {"kernel_names", impl.kernel_names}, {"sources", src}};
}

struct RowState {
  std::unique_ptr<RowContext> ctx;  // inputs on the device, reused by the row's units
  json correctness;  // journal record, once checked
  std::map<int, json> units;  // group -> unit record
  std::string failed_error;
};

// Applies one journal record to the campaign state; returns true for a timing unit.
bool apply_journal_record(std::map<std::string, RowState>& state, const json& j) {
  std::string id = j.at("row");
  if (j["kind"] == "correctness") state[id].correctness = j;
  else if (j["kind"] == "unit") {
    state[id].units[j["group"].get<int>()] = j;
    return true;
  } else if (j["kind"] == "row_failed") state[id].failed_error = j["error"];
  return false;
}

// Reads journal records from byte offset `from` on (records appended by an isolated child).
std::vector<json> journal_records_since(const std::string& path, size_t from) {
  std::string all = read_file(path);
  std::vector<json> out;
  std::istringstream in(all.substr(std::min(from, all.size())));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status))
    return "isolated child terminated by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "isolated child exited with code " + std::to_string(WEXITSTATUS(status));
}

json signatures_json(const std::map<std::string, std::vector<Signature>>& sigs,
                     const std::map<std::string, const Implementation*>& impls) {
  json out = json::object();
  for (const auto& [arm, v] : sigs) {
    if (v.empty()) continue;
    bool consistent = true;
    std::set<std::string> names;
    for (const auto& s : v) {
      consistent &= s == v.front();
      names.insert(s.kernel_names.begin(), s.kernel_names.end());
    }
    json und = json::array();
    const auto& declared = impls.at(arm)->kernel_names;
    // A declared name matches any observed name containing it (observed names are mangled).
    for (const auto& n : names)
      if (std::none_of(declared.begin(), declared.end(), [&](const std::string& d) { return n.find(d) != std::string::npos; }))
        und.push_back(n);
    out[arm] = {{"A", v.front().records}, {"L", v.front().launches},
                {"K", static_cast<int64_t>(v.front().kernel_names.size())},
                {"names", std::vector<std::string>(names.begin(), names.end())},
                {"consistent", consistent}, {"undeclared", und}, {"calls", v.size()}};
  }
  return out;
}

}  // namespace

namespace {

// Backend identity as the receipt records it; in --isolate mode a child process reports it, so
// the parent never initializes the device itself (a forked CUDA context is unusable).
struct BackendIdentity {
  std::string name, timer;
  json environment, protocol;
};

BackendIdentity identity_of(Backend& b) { return {b.name(), b.timer(), b.environment(), b.protocol()}; }

BackendIdentity identity_from_child(const BackendFactory& make_backend) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    ::close(fds[0]);
    int rc = 0;
    try {
      auto b = make_backend();
      BackendIdentity id = identity_of(*b);
      std::string text = json{{"name", id.name}, {"timer", id.timer}, {"environment", id.environment},
                              {"protocol", id.protocol}}.dump();
      size_t off = 0;
      while (off < text.size()) {
        ssize_t n = ::write(fds[1], text.data() + off, text.size() - off);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kgate: isolated child: %s\n", e.what());
      rc = 3;
    }
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(rc);
  }
  ::close(fds[1]);
  std::string text;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty())
    throw DeviceError("--isolate: the child that opens the device failed: " + describe_wait_status(status));
  json j = json::parse(text);
  return {j["name"], j["timer"], j["environment"], j["protocol"]};
}

}  // namespace

RunOutcome run_campaign(const RunConfig& cfg, Backend& backend) {
  return run_campaign(cfg, BackendFactory{}, &backend);
}

RunOutcome run_campaign(const RunConfig& cfg, const BackendFactory& make_backend, Backend* given) {
  cfg.schedule.validate();
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
  Registry& reg = Registry::instance();
  RunOutcome phases;  // host seconds per phase (this process)
  auto phase = [](double& acc, const auto& fn) {
    const auto t = std::chrono::steady_clock::now();
    fn();
    acc += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  CaseTable table = load_case_table(cfg.cases_path);
  filter_rows(table, cfg.rows_filter);
  const Family& fam = reg.family(table.family);
  if (cfg.baselines.empty()) throw InputError("--baseline: at least one baseline is required");
  std::map<std::string, const Implementation*> impls;
  std::vector<std::pair<std::string, std::string>> arm_roles;
  auto add_arm = [&](const std::string& name, const std::string& role, const char* flag) {
    const Implementation& im = reg.impl(name);
    if (im.family != table.family)
      throw InputError(std::string(flag) + " " + name + ": family '" + im.family + "' but " +
                       cfg.cases_path + " is a '" + table.family + "' table");
    if (im.backend != bid.name)
      throw InputError(std::string(flag) + " " + name + ": a " + im.backend + " implementation, but this run uses the " +
                       bid.name + " backend (use --backend or choose a " + bid.name + " arm; kgate list)");
    if (impls.count(name)) throw InputError(std::string(flag) + " " + name + ": arm named twice");
    impls[name] = &im;
    arm_roles.push_back({name, role});
  };
  add_arm(cfg.candidate, "candidate", "--candidate");
  for (const auto& b : cfg.baselines) add_arm(b, "baseline", "--baseline");

  std::fprintf(stderr, "[kgate] %s: %s vs %s, %zu rows of %s (%s backend, %s timer)\n", cfg.out_path.c_str(),
               cfg.candidate.c_str(), cfg.baselines.front().c_str(), table.rows.size(), cfg.cases_path.c_str(),
               bid.name.c_str(), bid.timer.c_str());
  json protocol = bid.protocol;
  protocol["timer"] = bid.timer;
  protocol["isolate"] = cfg.isolate;
  protocol["groups"] = cfg.schedule.groups;
  protocol["blocks"] = cfg.schedule.blocks;
  protocol["m"] = cfg.schedule.m;
  protocol["seed"] = cfg.schedule.seed;
  protocol["warmup_min_us"] = cfg.warmup_min_us;
  protocol["warmup_min_calls"] = cfg.warmup_min_calls;
  protocol["pairing"] = "ABBA/BAAB counterbalanced, equal counts per group";

  json arms = json::array();
  for (const auto& [n, role] : arm_roles) arms.push_back(arm_json(*impls[n], role));
  json row_ids = json::array();
  for (const auto& r : table.rows) row_ids.push_back(r.id);

  // Everything that must match for a resumed run to continue this one.
  json run_identity = {{"cases_sha256", table.sha256}, {"rows", row_ids}, {"arms", arms},
                       {"protocol", protocol}, {"backend", bid.name},
                       {"binary_sha256", self_binary_sha256()}};
  std::string identity_digest = sha256_hex(canonicalize(run_identity));
  std::string journal = cfg.out_path + ".journal";

  std::map<std::string, RowState> state;
  size_t resumed_units = 0;
  if (cfg.resume) {
    if (!file_exists(journal)) throw InputError(journal + ": no journal to resume (run without --resume)");
    std::istringstream in(read_file(journal));
    std::string line, kept;
    bool header_ok = false;
    size_t lineno = 0;
    while (std::getline(in, line)) {
      ++lineno;
      json j;
      try {
        j = json::parse(line);
      } catch (const json::exception&) {
        // Only the last line can be torn (killed mid-append); drop it.
        if (in.peek() != EOF) throw InputError(journal + ":" + std::to_string(lineno) + ": corrupt journal line");
        break;
      }
      if (lineno == 1) {
        if (j.value("kind", "") != "header" || j.value("identity_sha256", "") != identity_digest)
          throw InputError(journal + ": this journal is for a different run (cases, arms, protocol or binary differ); "
                           "rerun with the original flags or remove the journal");
        header_ok = true;
      } else {
        resumed_units += apply_journal_record(state, j);
      }
      kept += line + "\n";
    }
    if (!header_ok) throw InputError(journal + ": empty journal");
    write_file_atomic(journal, kept);  // drop a torn tail before appending
  } else {
    auto parent = std::filesystem::path(cfg.out_path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    if (file_exists(journal))
      throw InputError(journal + ": a journal of an unfinished run exists; pass --resume to continue it, or remove it");
    append_line_durable(journal, canonicalize(json{{"kind", "header"}, {"identity_sha256", identity_digest},
                                                   {"identity", run_identity}, {"started_utc", utc_now()}}));
  }

  const char* kill_env = std::getenv("KGATE_TEST_KILL_AFTER_UNITS");
  long kill_after = kill_env ? std::atol(kill_env) : -1;
  long units_this_process = 0;

  std::vector<Unit> units = plan_units(table.rows.size(), cfg.schedule);
  const bool tty = ::isatty(STDERR_FILENO);
  auto t0 = std::chrono::steady_clock::now();
  std::string started = utc_now();
  size_t done = 0;
  for (const Unit& u : units) {
    const CaseRow& row = table.rows[u.row];
    RowState& st = state[row.id];
    ++done;
    if (!cfg.quiet) {
      // On a terminal one line rewritten in place; in a log, a line every ~10 % of the units.
      double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      double eta = done > 1 ? el / static_cast<double>(done - 1) * static_cast<double>(units.size() - done + 1) : 0;
      size_t step = std::max<size_t>(1, units.size() / 10);
      if (tty || done == 1 || done % step == 0 || done == units.size()) {
        std::fprintf(stderr, "%s[kgate] unit %zu/%zu  row %zu/%zu %-28.28s group %d/%d  elapsed %.1fs  eta %.0fs   %s",
                     tty ? "\r" : "", done, units.size(), u.row + 1, table.rows.size(), row.id.c_str(), u.group + 1,
                     cfg.schedule.groups, el, eta, tty ? "" : "\n");
        std::fflush(stderr);
      }
    }
    if (!st.failed_error.empty() || st.units.count(u.group)) continue;
    if (!st.correctness.is_null() && st.correctness["disposition"] != "passed") continue;
    auto fail_row = [&](const std::string& msg) {
      append_line_durable(journal, canonicalize(json{{"kind", "row_failed"}, {"row", row.id}, {"error", msg}}));
      st.failed_error = msg;
      st.ctx.reset();
    };
    // One unit: correctness (first time only), warm-up, the paired samples; journalled.
    auto run_unit = [&](Backend& be) {
      if (const char* crash = std::getenv("KGATE_TEST_CRASH_ROW"); crash && row.id == crash)
        ::raise(SIGSEGV);  // isolation tests: a row whose kernel faults
      uint64_t seed = row_seed(cfg.schedule.seed, row.id);
      try {
        std::unique_ptr<RowContext>& ctx = st.ctx;
        if (st.correctness.is_null()) {
          json rec = {{"kind", "correctness"}, {"row", row.id}, {"error", nullptr}};
          std::string unsupported;
          for (const auto& [n, role] : arm_roles) {
            const Implementation* im = impls[n];
            if (im->supports) {
              std::string why = im->supports(row.params);
              if (!why.empty()) unsupported += (unsupported.empty() ? "" : "; ") + n + ": " + why;
            }
          }
          json checks = json::array();
          std::string disposition = "passed";
          if (!unsupported.empty()) {
            disposition = "not_supported";
            rec["error"] = unsupported;
          } else {
            phase(phases.prepare_s, [&] { ctx = be.prepare(fam, row, seed); });
            phase(phases.check_s, [&] {
              for (const auto& [n, role] : arm_roles) {
                Correctness c = ctx->check(*impls[n]);
                checks.push_back(c.to_json(n));
                if (!c.passed) disposition = "incorrect";
              }
            });
          }
          rec["disposition"] = disposition;
          rec["correctness"] = checks;
          append_line_durable(journal, canonicalize(rec));
          st.correctness = rec;
          if (disposition != "passed") {
            ctx.reset();
            return;
          }
        }
        if (!ctx) phase(phases.prepare_s, [&] { ctx = be.prepare(fam, row, seed); });
        // Warm-up: at least warmup_min_calls calls and warmup_min_us of work per arm.
        phase(phases.warmup_s, [&] {
          for (const auto& [n, role] : arm_roles) {
            double spent = 0;
            for (int c = 0; c < cfg.warmup_min_calls || spent < cfg.warmup_min_us; ++c) {
              spent += ctx->warm_call_us(*impls[n]);
              if (c > 100000) break;
            }
          }
        });
        json pairs = json::array();
        std::map<std::string, std::vector<Signature>> sigs;
        json events = json::object(), clocks = json::object(), self = json::object();
        std::string letters = block_letters(cfg.schedule, u.group, u.row);
        phase(phases.timing_s, [&] {
          for (const auto& b : cfg.baselines) {
            std::vector<double> sb, sc;
            for (char L : letters) {
              const std::string& arm = L == 'A' ? b : cfg.candidate;
              Sample s = ctx->time_once(*impls[arm]);
              (L == 'A' ? sb : sc).push_back(s.us);
              if (s.signature) sigs[arm].push_back(*s.signature);
              if (s.events_us > 0) events[arm].push_back(s.events_us);
              if (s.sm_clock_mhz > 0) clocks[arm].push_back(s.sm_clock_mhz);
              if (s.self_us > 0) self[arm].push_back(s.self_us);
            }
            pairs.push_back({{"baseline", sb}, {"candidate", sc}});
          }
        });
        json rec = {{"kind", "unit"}, {"row", row.id}, {"group", u.group}, {"pairs", pairs},
                    {"signatures", signatures_json(sigs, impls)}, {"events_us", events}, {"sm_clock_mhz", clocks}, {"self_us", self}};
        append_line_durable(journal, canonicalize(rec));
        st.units[u.group] = rec;
        if (static_cast<int>(st.units.size()) == cfg.schedule.groups) ctx.reset();  // row done: free its inputs
      } catch (const InputError&) {
        throw;
      } catch (const std::exception& e) {  // device and runtime errors fail the row, not the run
        fail_row(e.what());
      }
    };
    if (!cfg.isolate) {
      run_unit(*given);
    } else {
      // The unit runs in a child process; what it journals is read back here. A child that
      // dies (a faulting kernel, an abort) fails its row and the campaign goes on.
      size_t before = std::filesystem::file_size(journal);
      std::fflush(nullptr);
      pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("fork() failed");
      if (pid == 0) {
        int rc = 0;
        try {
          auto be = make_backend();
          run_unit(*be);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "kgate: isolated child: %s\n", e.what());
          rc = 3;
        }
        std::fflush(nullptr);
        ::_exit(rc);
      }
      int status = 0;
      ::waitpid(pid, &status, 0);
      for (const json& rec : journal_records_since(journal, before)) apply_journal_record(state, rec);
      bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok && st.failed_error.empty() && !st.units.count(u.group)) fail_row(describe_wait_status(status));
    }
    if (st.units.count(u.group) && kill_after >= 0 && ++units_this_process >= kill_after)
      ::raise(SIGKILL);  // resume tests: a real kill, no cleanup
  }
  if (!cfg.quiet && tty) std::fprintf(stderr, "\n");

  // Assemble rows from the journal state.
  json rows = json::array();
  json sample_rows = json::object();
  for (const auto& r : table.rows) {
    RowState& st = state[r.id];
    json row;
    row["id"] = r.id;
    row["family"] = r.family;
    row["params"] = r.params;
    row["tags"] = r.tags;
    row["tolerance"] = {{"atol", r.tolerance.atol}, {"rtol", r.tolerance.rtol}};
    row["correctness"] = st.correctness.is_null() ? json::array() : st.correctness["correctness"];
    std::string disp = st.correctness.is_null() ? "skipped" : st.correctness["disposition"].get<std::string>();
    json err = st.correctness.is_null() ? json(nullptr) : st.correctness["error"];
    if (!st.failed_error.empty()) {
      disp = "failed";
      err = st.failed_error;
    }
    if (disp == "passed" && static_cast<int>(st.units.size()) != cfg.schedule.groups) {
      disp = "failed";
      err = "missing timing units";
    }
    row["disposition"] = disp;
    row["error"] = err;
    json pairs = json::array();
    for (const auto& b : cfg.baselines) pairs.push_back({{"baseline", b}, {"candidate", cfg.candidate}});
    row["pairs"] = pairs;
    row["signatures"] = nullptr;
    row["events_timer_us"] = nullptr;
    row["self_clock_us"] = nullptr;
    row["sm_clock_mhz"] = nullptr;
    row["throttled_samples"] = nullptr;
    json samples = nullptr;
    if (disp == "passed") {
      samples = {{"pairs", json::array()}};
      for (size_t p = 0; p < cfg.baselines.size(); ++p) {
        json gb = json::array(), gc = json::array();
        for (auto& [g, unit] : st.units) {
          gb.push_back(unit["pairs"][p]["baseline"]);
          gc.push_back(unit["pairs"][p]["candidate"]);
        }
        samples["pairs"].push_back({{"baseline", gb}, {"candidate", gc}});
      }
      // Activity signatures, merged over groups.
      json sig = json::object();
      for (auto& [g, unit] : st.units)
        for (auto it = unit["signatures"].begin(); it != unit["signatures"].end(); ++it) {
          if (!sig.contains(it.key())) sig[it.key()] = it.value();
          else {
            json& s = sig[it.key()];
            bool same = s["A"] == it.value()["A"] && s["L"] == it.value()["L"] && s["K"] == it.value()["K"] &&
                        s["names"] == it.value()["names"];
            s["consistent"] = s["consistent"].get<bool>() && it.value()["consistent"].get<bool>() && same;
            s["calls"] = s["calls"].get<int64_t>() + it.value()["calls"].get<int64_t>();
            std::set<std::string> und(s["undeclared"].begin(), s["undeclared"].end());
            for (const auto& n : it.value()["undeclared"]) und.insert(n.get<std::string>());
            s["undeclared"] = std::vector<std::string>(und.begin(), und.end());
          }
        }
      if (!sig.empty()) row["signatures"] = sig;
      // Side measurements (events timer, the kernel's own clock, SM clock): medians per arm.
      auto side = [&](const char* key) -> json {
        std::map<std::string, std::vector<double>> v;
        for (auto& [g, unit] : st.units)
          if (unit.contains(key))
            for (auto it = unit[key].begin(); it != unit[key].end(); ++it)
              for (const auto& x : it.value()) v[it.key()].push_back(x.get<double>());
        if (v.empty()) return nullptr;
        json out = json::object();
        for (auto& [arm, xs] : v) {
          auto sm = summarize(xs);
          out[arm] = {{"median", sm.median}, {"min", sm.min}, {"max", sm.max}, {"n", sm.n}};
        }
        return out;
      };
      row["events_timer_us"] = side("events_us");
      row["self_clock_us"] = side("self_us");
      row["sm_clock_mhz"] = side("sm_clock_mhz");
      // Throttled samples: SM clock read after the call below 95 % of the device's maximum.
      double max_clock = 0;
      if (bid.environment.contains("gpus") && !bid.environment["gpus"].empty())
        max_clock = bid.environment["gpus"][0].value("max_sm_clock_mhz", 0.0);
      if (max_clock > 0 && !row["sm_clock_mhz"].is_null()) {
        int64_t throttled = 0;
        for (auto& [g, unit] : st.units)
          if (unit.contains("sm_clock_mhz"))
            for (auto it = unit["sm_clock_mhz"].begin(); it != unit["sm_clock_mhz"].end(); ++it)
              for (const auto& x : it.value()) throttled += x.get<double>() < 0.95 * max_clock;
        row["throttled_samples"] = throttled;
      }
      sample_rows[r.id] = samples;
    }
    derive_row(row, samples, cfg.policy);
    rows.push_back(row);
  }
  auto t1 = std::chrono::steady_clock::now();

  json sidecar = {{"schema", kSamplesSchema}, {"unit", "us"}, {"rows", sample_rows}};
  std::string sidecar_bytes = canonicalize(sidecar) + "\n";
  std::string sidecar_path = sidecar_path_for(cfg.out_path);
  std::string sidecar_name = std::filesystem::path(sidecar_path).filename().string();
  std::string sidecar_sha = sha256_hex(sidecar_bytes);

  json subject = json::array();
  subject.push_back({{"name", "kgate"}, {"digest", {{"sha256", self_binary_sha256()}}}});
  std::string cases_rel = cfg.cases_path;
  subject.push_back({{"name", cases_rel}, {"digest", {{"sha256", table.sha256}}}});
  std::set<std::string> seen_src;
  for (const auto& a : arms)
    for (const auto& s : a["sources"])
      if (seen_src.insert(s["path"]).second)
        subject.push_back({{"name", s["path"]}, {"digest", {{"sha256", s["sha256"]}}}});
  subject.push_back({{"name", sidecar_name}, {"digest", {{"sha256", sidecar_sha}}}});

  json pred;
  pred["tool"] = {{"name", "kgate"}, {"version", KGATE_VERSION}, {"git_commit", built_git_commit()},
                  {"binary_sha256", self_binary_sha256()}};
  pred["backend"] = bid.name;
  pred["timer"] = bid.timer;
  pred["environment"] = bid.environment;
  pred["protocol"] = protocol;
  pred["cases"] = {{"path", cases_rel}, {"sha256", table.sha256}, {"table", table.name},
                   {"family", table.family}, {"rows_filter", cfg.rows_filter}};
  pred["arms"] = arms;
  pred["policy"] = cfg.policy.to_json();
  pred["samples"] = {{"path", sidecar_name}, {"sha256", sidecar_sha}};
  pred["run"] = {{"finished_utc", utc_now()}, {"wall_s_this_process", std::chrono::duration<double>(t1 - t0).count()},
                 {"resumed_units", resumed_units}, {"units", units.size()}};
  pred["rows"] = rows;
  pred["summary"] = derive_summary(rows);
  json body = {{"_type", "https://in-toto.io/Statement/v1"}, {"subject", subject},
               {"predicateType", kPredicateType}, {"predicate", pred}};
  json receipt = seal_receipt(body, cfg.sign_key);
  write_file_atomic(sidecar_path, sidecar_bytes);
  write_file_atomic(cfg.out_path, receipt_bytes(receipt));
  std::filesystem::remove(journal);
  RunOutcome o;
  o.receipt_path = cfg.out_path;
  o.summary = pred["summary"];
  o.policy_passed = pred["summary"]["policy_failed"] == 0;
  o.prepare_s = phases.prepare_s;
  o.check_s = phases.check_s;
  o.warmup_s = phases.warmup_s;
  o.timing_s = phases.timing_s;
  return o;
}

}  // namespace kgate
