#include "harness/run/executor.hpp"

#include "harness/run/campaign.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/verdicts.hpp"

namespace kgate {

std::vector<double> PhaseTimes::to_vector() const {
  std::vector<double> t;
  for (auto f : kFields) t.push_back(this->*f);
  return t;
}

void PhaseTimes::add(const std::vector<double>& t) {
  if (t.size() != std::size(kFields))
    throw std::runtime_error("phase times: expected " + std::to_string(std::size(kFields)));
  for (size_t i = 0; i < t.size(); ++i) this->*kFields[i] += t[i];
}

namespace {

template <class F>
void timed(double& acc, F&& fn) {
  const auto t = std::chrono::steady_clock::now();
  fn();
  acc += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A phase whose steps include the proof's: the proof's time (added to its parts inside fn) is
// taken out of the phase's.
template <class F>
void timed_phase(double& acc, PhaseTimes& phases, F&& fn) {
  const double proof_before = phases.proof_s();
  timed(acc, fn);
  acc -= phases.proof_s() - proof_before;
}

// A timed call's side series (events, SM clock, self clock, intervals, activity), appended.
void add_side(SideSeries& side, Sample&& s) {
  if (s.events_us > 0) side.events_us.push_back(s.events_us);
  if (s.sm_clock_mhz > 0) side.sm_clock_mhz.push_back(s.sm_clock_mhz);
  if (s.self_us > 0) side.self_us.push_back(s.self_us);
  if (!s.intervals_ns.empty()) side.intervals_ns.push_back(SideSeries::flatten_intervals(s.intervals_ns));
  if (!s.activity_us.empty()) side.activity_us.push_back(std::move(s.activity_us));
}

SeedCheck seed_check(int set, const Correctness& c) {
  return {set, c.passed, c.mismatches + c.nonfinite + c.unwritten, c.max_abs_err};
}

// One unit's input rotation and timed-call proof: every call of an arm (warm-up or timed) gets
// input set n % K, n counting that arm's calls in the unit; the verified timed calls (chosen before
// the first, from the run seed, row and group) are prepared and checked around the call, outside
// its timed window.
class UnitProof {
 public:
  static constexpr int kRewarmCalls = 2;
  // agree: the ranks' agreement (InProcessExecutor::agree_or_abandon(true)), made before the untimed
  // calls that follow a verified one, as before any call: a rank that failed the unit in between
  // says so there, and no rank is left alone in an arm's collective.
  UnitProof(RowContext& ctx, PhaseTimes& phases, const Plan& plan, const UnitSpec& spec,
            const std::map<std::string, std::string>& refused, std::function<void()> agree)
      : ctx_(ctx), phases_(phases), group_(spec.group), sets_(std::max(1, ctx.input_sets())), agree_(std::move(agree)) {
    std::map<std::string, int64_t> timed_calls;
    for (const auto& b : plan.baselines)
      if (!refused.count(b))
        for (char L : spec.letters) ++timed_calls[L == 'A' ? b : plan.candidate];
    uint64_t arm_index = 0;
    for (const auto& [arm, n] : timed_calls) {
      const uint64_t seed = splitmix_mix(plan.schedule.seed * kGolden ^ spec.seed ^
                                         (static_cast<uint64_t>(spec.group) << 40) ^ ++arm_index);
      arms_[arm].verify = verified_calls(n, plan.proof.verified_share, seed, sets_);
    }
  }
  // Before a warm-up call.
  void load(const std::string& arm) {
    Arm& a = arms_[arm];
    a.set = static_cast<int>(a.calls++ % sets_);
    timed(phases_.proof_inputs_s, [&] { ctx_.load_input(a.set); });
  }
  // One timed call of `arm` (its name in the plan), its input loaded and, where chosen, its output
  // verified.
  Sample time(const std::string& arm, const Implementation& impl) {
    load(arm);
    Arm& a = arms_[arm];
    const int64_t call = a.proof.timed++;
    const bool verify = call < static_cast<int64_t>(a.verify.size()) && a.verify[call];
    if (verify) timed(phases_.proof_verified_s, [&] { ctx_.prepare_verified(impl); });
    Sample s = ctx_.time_once(impl);
    if (!verify) return s;
    Correctness c;
    timed(phases_.proof_verified_s, [&] {
      c = ctx_.verify(impl);
      // The check's own device work slowed the arm's next timed call (sparse_mla on the H100: the
      // call after a verified one 5-7 % slower on average, slow in 68-98 % of bimodal rows against
      // 35-40 %; the row intervals doubled). Untimed calls of the arm on the same set put it back
      // where the next call would find it unchecked; two, so the parity of its calls is kept. None
      // after the arm's last timed call of the unit.
      const bool more = call + 1 < static_cast<int64_t>(a.verify.size());
      if (more) agree_();
      for (int r = 0; more && r < kRewarmCalls; ++r) {
        ctx_.load_input(a.set);
        ctx_.warm_call_us(impl);
      }
    });
    ++a.proof.verified;
    if (!c.passed && a.proof.failed++ == 0) a.proof.first_failure = failed_call_text(arm, call, group_, a.set, c);
    return s;
  }
  std::map<std::string, CallProof> result() const {
    std::map<std::string, CallProof> out;
    for (const auto& [arm, a] : arms_)
      if (a.proof.timed) out[arm] = a.proof;
    return out;
  }

 private:
  struct Arm {
    int64_t calls = 0;
    int set = 0;
    std::vector<bool> verify;
    CallProof proof;
  };
  RowContext& ctx_;
  PhaseTimes& phases_;
  int group_;
  int sets_;
  std::function<void()> agree_;
  std::map<std::string, Arm> arms_;
};

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status))
    return "isolated child terminated by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "isolated child exited with code " + std::to_string(WEXITSTATUS(status));
}

// The forked child's first steps: its own process group (so a timeout kills everything it
// started), and death with its parent (a killed campaign leaves no unit running on the device).
void become_unit_child(pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(3);  // the parent died before the request took hold
}

// Everything the child writes to `fd` until it closes it, or nullopt once `deadline` passes
// first (no deadline: wait as long as it takes).
std::optional<std::string> read_until(int fd, std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::string text;
  char buf[65536];
  for (;;) {
    int wait_ms = -1;
    if (deadline) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      wait_ms = static_cast<int>(std::min<long long>(left.count() + 1, 60000));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) throw std::runtime_error(std::string("poll() on the isolated child's pipe: ") + strerror(errno));
    if (ready == 0) continue;  // the deadline is checked above
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(std::string("read() from the isolated child: ") + strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
  }
}

// Runs `child` in a forked process and returns what it wrote to the pipe, or the wait status's
// description in *failure. The child never returns into the caller's stack. With a timeout, a
// child that has not finished within it is killed with its process group, and *failure says so.
std::string run_in_child(const std::function<std::string()>& child, std::string* failure,
                         std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe() failed");
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork() failed");
  if (pid == 0) {
    become_unit_child(parent);
    ::close(fds[0]);
    int rc = 0;
    try {
      write_fd_all(fds[1], child(), "the pipe to the parent");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kgate: isolated child: %s\n", e.what());
      rc = 3;
    }
    ::close(fds[1]);
    std::fflush(nullptr);
    ::_exit(rc);
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists before a kill
  ::close(fds[1]);
  std::optional<std::string> text;
  try {
    text = read_until(fds[0], timeout ? std::optional(started + *timeout) : std::nullopt);
  } catch (...) {
    ::kill(-pid, SIGKILL);
    ::close(fds[0]);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    throw;
  }
  ::close(fds[0]);
  if (!text) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!text) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", std::chrono::duration<double>(*timeout).count());
    *failure = std::string("unit timed out: the isolated child ran past --unit-timeout ") + limit +
               " s and was killed with its process group";
    return "";
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text->empty()) *failure = describe_wait_status(status);
  return *text;
}

}  // namespace

bool arch_matches(const std::vector<std::string>& archs, const std::string& device) {
  for (const auto& a : archs)
    if (a == device || a == device + "a") return true;
  return false;
}

std::vector<uint64_t> derived_input_seeds(uint64_t run_seed, uint64_t row_seed, int input_sets) {
  std::vector<uint64_t> out;
  for (int k = 1; k < input_sets; ++k)
    out.push_back(splitmix_mix(row_seed ^ splitmix_mix(run_seed + static_cast<uint64_t>(k) * kGolden)));
  return out;
}

std::vector<bool> verified_calls(int64_t calls, double share, uint64_t seed, int input_sets) {
  std::vector<bool> v(static_cast<size_t>(std::max<int64_t>(calls, 0)), false);
  if (calls <= 0) return v;
  Rng rng(seed);
  for (int64_t i = 0; i + 1 < calls; ++i) v[i] = rng.uniform() < share;
  v[calls - 1] = true;
  if (calls < 2) return v;
  auto covers = [&](auto&& key) {
    std::set<int64_t> seen;
    for (int64_t i = 0; i < calls; ++i)
      if (v[i]) seen.insert(key(i));
    return seen.size() > 1;
  };
  if (!covers([](int64_t i) { return i % 2; })) {
    // A call of the other parity than the last, at a seeded place.
    int64_t i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(calls - 1)));
    if (i % 2 == (calls - 1) % 2) i = i > 0 ? i - 1 : i + 1;
    v[i] = true;
  }
  if (input_sets > 1 && !covers([&](int64_t i) { return i % input_sets; })) v[calls - 2] = true;
  return v;
}

bool proof_failed(const RankResult& r) {
  for (const auto& [arm, p] : r.proof)
    if (p.failed) return true;
  return false;
}

std::string wrong_elements_text(const Correctness& c) {
  char vals[160];
  std::snprintf(vals, sizeof vals, " = %.6g, reference %.6g; ", c.worst_out, c.worst_ref);
  return (c.worst.empty() ? "" : c.worst + vals) + std::to_string(c.mismatches + c.nonfinite + c.unwritten) + " of " +
         std::to_string(c.elements) + " elements wrong (" + std::to_string(c.mismatches) + " mismatched, " +
         std::to_string(c.nonfinite) + " non-finite, " + std::to_string(c.unwritten) + " unwritten)";
}

std::string failed_call_text(const std::string& arm, int64_t call, int group, int set, const Correctness& c) {
  return "arm " + arm + ": timed call " + std::to_string(call + 1) + " of group " + std::to_string(group + 1) +
         " (input set " + std::to_string(set) + "): " + wrong_elements_text(c);
}

InProcessExecutor::InProcessExecutor(const Plan& plan, Backend& backend) : plan_(plan), backend_(backend) {}

std::map<std::string, std::string> InProcessExecutor::refusals(const CaseRow& row, RowContext* ctx) const {
  std::map<std::string, std::string> out;
  for (const auto& a : plan_.arms) {
    std::string why;
    if (!arch_matches(a.impl->archs, backend_.arch())) {
      why = "built for";
      for (const auto& x : a.impl->archs) why += " " + x;
      why += ", this device is " + backend_.arch();
    } else if (a.impl->supports) {
      why = a.impl->supports(row.params);
    }
    if (why.empty() && ctx) why = ctx->refusal(*a.impl);
    if (!why.empty()) out[a.name] = why;
  }
  return out;
}

std::map<std::string, std::string> InProcessExecutor::agreed_refusals(const std::map<std::string, std::string>& mine) {
  std::map<std::string, std::string> out;
  for (const auto& a : plan_.arms) {
    if (!plan_.may_refuse.count(a.name)) continue;
    auto it = mine.find(a.name);
    // One agreement per arm that may refuse, in plan order, on every rank alike.
    if (!backend_.ranks_agree(it == mine.end()))
      out[a.name] = it != mine.end() ? it->second : "refused on another rank";
  }
  return out;
}

RowCheck InProcessExecutor::check_row(const UnitSpec& spec, std::unique_ptr<RowContext>& ctx) {
  const CaseRow& row = plan_.table.rows[spec.row];
  RowCheck rc;
  // A refusal the policy does not accept makes the row not_supported; ranks on unlike GPUs may
  // refuse differently, so they agree on it. First what the row's parameters decide, then, once
  // its inputs exist, what the arms say of them.
  auto unaccepted = [&](const std::map<std::string, std::string>& mine) {
    std::string refused;
    bool accepted = true;
    for (const auto& a : plan_.arms)
      if (auto it = mine.find(a.name); it != mine.end()) {
        refused += (refused.empty() ? "" : "; ") + a.name + ": " + it->second;
        accepted = accepted && plan_.may_refuse.count(a.name);
      }
    agree_or_abandon(accepted);
    if (!accepted) {
      rc.disposition = Disposition::not_supported;
      rc.error = refused;
    }
    return !accepted;
  };
  if (unaccepted(refusals(row))) return rc;
  prepare_row(spec, ctx);
  const std::map<std::string, std::string> mine = refusals(row, ctx.get());
  if (unaccepted(mine)) return rc;
  rc.refused = agreed_refusals(mine);
  rc.seeds = {spec.seed};
  for (uint64_t s : derived_input_seeds(plan_.schedule.seed, spec.seed, plan_.proof.input_sets)) rc.seeds.push_back(s);
  timed_phase(phases_.check_s, phases_, [&] {
    for (const auto& a : plan_.arms) {
      if (rc.refused.count(a.name)) continue;
      check_arm(a, *ctx, rc);
      agree_or_abandon(true);  // an arm's check may run collectives: a rank that threw in it says so here
    }
  });
  agree_or_abandon(rc.disposition == Disposition::passed);
  return rc;
}

void InProcessExecutor::check_arm(const PlanArm& a, RowContext& ctx, RowCheck& rc) {
  ctx.load_input(0);
  Correctness c = ctx.check(*a.impl);
  agree_or_abandon(true);  // a check may run collectives: a rank that threw in the first says so before the second
  Correctness second;
  timed(phases_.proof_checks_s, [&] {
    ctx.load_input(1);
    second = ctx.check(*a.impl);
  });
  rc.seed_checks[a.name] = {seed_check(0, c), seed_check(1, second)};
  if (!c.passed || !second.passed) rc.disposition = Disposition::incorrect;
  if (c.passed && !second.passed && rc.error.empty())
    rc.error = "arm " + a.name + ": check on input set 1: " + wrong_elements_text(second);
  rc.checks.push_back({a.name, std::move(c)});
  json cfg = ctx.config(*a.impl);
  if (!cfg.is_null()) rc.configs[a.name] = cfg;
}

void InProcessExecutor::prepare_row(const UnitSpec& spec, std::unique_ptr<RowContext>& ctx) {
  timed(phases_.prepare_s, [&] { ctx = backend_.prepare(*plan_.family, plan_.table.rows[spec.row], spec.seed); });
  timed(phases_.proof_inputs_s,
        [&] { ctx->add_input_sets(derived_input_seeds(plan_.schedule.seed, spec.seed, plan_.proof.input_sets)); });
  agree_or_abandon(true);
}

void InProcessExecutor::agree_or_abandon(bool ok) {
  if (!backend_.ranks_agree(ok) && ok) throw RankAbandoned();
}

void InProcessExecutor::tell_ranks_failed() {
  try {
    backend_.ranks_agree(false);
  } catch (const std::exception&) {  // the agreement itself failed: the ranks' bound (--rank-timeout) ends the unit
  }
}

RankResult InProcessExecutor::time_unit(const UnitSpec& spec, RowContext& ctx) {
  const std::map<std::string, std::string> refused = agreed_refusals(refusals(plan_.table.rows[spec.row], &ctx));
  UnitProof proof(ctx, phases_, plan_, spec, refused, [this] { agree_or_abandon(true); });
  // Warm-up: at least warmup_min_calls calls and warmup_min_us of work per arm.
  timed_phase(phases_.warmup_s, phases_, [&] {
    for (const auto& a : plan_.arms) {
      if (refused.count(a.name)) continue;
      double spent = 0;
      for (int c = 0; c < plan_.warmup_min_calls || spent < plan_.warmup_min_us; ++c) {
        proof.load(a.name);
        spent += ctx.warm_call_us(*a.impl);
        if (c > 100000) break;
      }
    }
  });
  RankResult rr;
  std::map<std::string, std::vector<Signature>> sigs;
  timed_phase(phases_.timing_s, phases_, [&] {
    for (const auto& b : plan_.baselines) {
      std::vector<double> sb, sc;
      if (refused.count(b)) {  // a refused baseline's pair: no samples, the pairs keep their order
        rr.baseline.emplace_back();
        rr.candidate.emplace_back();
        continue;
      }
      for (char L : spec.letters) {
        const std::string& arm = L == 'A' ? b : plan_.candidate;
        Sample s = proof.time(arm, plan_.impl(arm));
        (L == 'A' ? sb : sc).push_back(s.us);
        if (s.signature) sigs[arm].push_back(*s.signature);
        add_side(rr.side[arm], std::move(s));
      }
      rr.baseline.push_back(std::move(sb));
      rr.candidate.push_back(std::move(sc));
    }
  });
  agree_or_abandon(true);  // a rank that failed in its last sample says so here
  for (auto it = rr.side.begin(); it != rr.side.end();) it = it->second.empty() ? rr.side.erase(it) : std::next(it);
  for (const auto& [arm, v] : sigs) {
    std::vector<SignatureCount> counts;
    for (const auto& s : v) merge_signature_counts(counts, {{s, 1}});
    rr.signatures[arm] = std::move(counts);
  }
  rr.proof = proof.result();
  return rr;
}

UnitResult InProcessExecutor::run_unit(const UnitSpec& spec) {
  UnitResult u;
  u.row_id = spec.row_id;
  u.group = spec.group;
  // The unit's steps. Contexts are kept across a row's units, so every row of a group can hold
  // inputs at once: when the device runs out of memory, the other rows' contexts are freed (they
  // are made again, from their seeds, for their next unit) and the unit starts over, once. A rank
  // of a job does not: its peers would wait for it in a collective.
  auto attempt = [&] {
    u.check.reset();
    u.ranks.clear();
    std::unique_ptr<RowContext>& ctx = contexts_[spec.row_id];
    if (spec.check) {
      u.check = check_row(spec, ctx);
      if (u.check->disposition != Disposition::passed) {
        contexts_.erase(spec.row_id);
        return;
      }
    }
    if (!ctx) prepare_row(spec, ctx);
    u.ranks.push_back(time_unit(spec, *ctx));
    if (spec.last_of_row || proof_failed(u.ranks.back())) contexts_.erase(spec.row_id);
  };
  try {
    try {
      attempt();
    } catch (const MemoryShort&) {
      if (!backend_.alone() || contexts_.size() < 2) throw;
      contexts_.clear();
      attempt();
    }
  } catch (const RankAbandoned& e) {
    // Another rank failed this unit and said so at an agreement: the merged unit carries its cause.
    u.check.reset();
    u.ranks.clear();
    u.error = e.what();
    u.abandoned = true;
    contexts_.erase(spec.row_id);
  } catch (const InputError& e) {
    // An arm or its context refused this case: the row is not supported, the run goes on.
    tell_ranks_failed();
    RowCheck rc;
    rc.disposition = Disposition::not_supported;
    rc.error = e.what();
    if (u.check) rc.checks = u.check->checks;
    u.check = std::move(rc);
    u.ranks.clear();
    contexts_.erase(spec.row_id);
  } catch (const std::exception& e) {  // device and runtime errors fail the row, not the run
    tell_ranks_failed();
    u.error = e.what();
    u.ranks.clear();
    contexts_.erase(spec.row_id);
  }
  return u;
}

IsolatedExecutor::IsolatedExecutor(const Plan& plan, BackendFactory make_backend,
                                   std::optional<std::chrono::milliseconds> unit_timeout)
    : plan_(plan), make_backend_(std::move(make_backend)), timeout_(unit_timeout) {}

UnitResult IsolatedExecutor::run_unit(const UnitSpec& spec) {
  std::string failure;
  std::string text = run_in_child(
      [&] {
        auto backend = make_backend_();
        InProcessExecutor inner(plan_, *backend);
        UnitSpec s = spec;
        s.last_of_row = true;  // the child's inputs end with it
        const json unit = to_json(inner.run_unit(s));
        const PhaseTimes& t = inner.phases();
        return json{{"unit", unit}, {"phases", t.to_vector()}}.dump();
      },
      &failure, timeout_);
  if (failure.empty()) {
    try {
      const json got = json::parse(text);
      UnitResult u = unit_result_from_json(got.at("unit"));
      phases_.add(got.at("phases").get<std::vector<double>>());
      if (u.row_id == spec.row_id && u.group == spec.group) return u;
      failure = "isolated child returned a result for another unit";
    } catch (const std::exception& e) {
      failure = std::string("isolated child returned an unreadable result: ") + e.what();
    }
  }
  UnitResult u;
  u.row_id = spec.row_id;
  u.group = spec.group;
  u.error = failure;
  return u;
}

RankThreadsExecutor::RankThreadsExecutor(std::vector<std::shared_ptr<Executor>> ranks,
                                         std::chrono::milliseconds unit_timeout)
    : ranks_(std::move(ranks)), timeout_(unit_timeout) {
  if (ranks_.empty()) throw InputError("rank runner: no ranks");
}

UnitResult RankThreadsExecutor::run_unit(const UnitSpec& spec) {
  UnitResult u;
  u.row_id = spec.row_id;
  u.group = spec.group;
  if (!broken_.empty()) {
    u.error = broken_;
    return u;
  }
  // What the rank threads hand back; shared with them, so a hung thread outlives this call safely.
  struct Results {
    std::mutex m;
    std::condition_variable cv;
    size_t left = 0;
    std::vector<std::optional<UnitResult>> got;
  };
  auto res = std::make_shared<Results>();
  res->left = ranks_.size();
  res->got.resize(ranks_.size());
  for (size_t r = 0; r < ranks_.size(); ++r) {
    std::thread([res, r, exec = ranks_[r], spec] {
      UnitResult got;
      try {
        got = exec->run_unit(spec);
      } catch (const std::exception& e) {  // an executor never throws for its unit; this is a bug's net
        got.row_id = spec.row_id;
        got.group = spec.group;
        got.error = e.what();
      }
      std::lock_guard<std::mutex> lock(res->m);
      res->got[r] = std::move(got);
      --res->left;
      res->cv.notify_all();
    }).detach();
  }
  std::unique_lock<std::mutex> lock(res->m);
  if (!res->cv.wait_for(lock, timeout_, [&] { return res->left == 0; })) {
    const std::string missing = missing_ranks(ranks_.size(), [&](size_t r) { return !res->got[r]; });
    broken_ = "rank runner: rank " + missing + " returned no result for unit (" + spec.row_id + ", group " +
              std::to_string(spec.group) + ") within " + std::to_string(timeout_.count() / 1000.0) +
              " s; the runner stops (every later unit fails)";
    u.error = broken_;
    return u;
  }
  std::vector<UnitResult> got;
  for (auto& g : res->got) got.push_back(std::move(*g));
  return merge_rank_units(spec, std::move(got));
}

std::string missing_ranks(size_t world_size, const std::function<bool(size_t)>& missing) {
  std::string out;
  for (size_t r = 0; r < world_size; ++r)
    if (missing(r)) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

UnitResult merge_rank_units(const UnitSpec& spec, std::vector<UnitResult> got) {
  UnitResult u;
  u.row_id = spec.row_id;
  u.group = spec.group;
  // One rank's result (a rank process's own, through a one-rank runner) is its own: no rank to name.
  auto named = [&](size_t r, const std::string& what) {
    return got.size() == 1 ? what : "rank " + std::to_string(r) + ": " + what;
  };
  std::string abandoned;  // a rank that stopped because another failed: that one's cause is the unit's
  for (size_t r = 0; r < got.size(); ++r) {
    UnitResult& g = got[r];
    std::string& error = g.abandoned ? abandoned : u.error;
    if (!g.error.empty() && error.empty()) error = named(r, g.error);
    if (g.check &&
        (!u.check || (u.check->disposition == Disposition::passed && g.check->disposition != Disposition::passed))) {
      u.check = g.check;
      if (r > 0 && !u.check->error.empty()) u.check->error = named(r, u.check->error);
    }
  }
  const bool check_failed = u.check && u.check->disposition != Disposition::passed;
  if (u.error.empty() && !check_failed && !abandoned.empty()) {  // no rank said why
    u.error = abandoned;
    u.abandoned = true;
  }
  if (!u.error.empty() || check_failed) return u;
  size_t timed = 0;
  for (const UnitResult& g : got) timed += g.timed();
  if (timed == 0) return u;
  if (timed != got.size()) {
    u.error = "rank runner: " + std::to_string(timed) + " of " + std::to_string(got.size()) + " ranks returned samples";
    return u;
  }
  for (size_t r = 0; r < got.size(); ++r)
    for (RankResult rr : got[r].ranks) {
      rr.rank = static_cast<int>(r);
      u.ranks.push_back(std::move(rr));
    }
  return u;
}

RankPlanExecutor::RankPlanExecutor(const RunConfig& cfg, std::unique_ptr<Backend> backend)
    : backend_(std::move(backend)), plan_(make_plan(cfg, backend_->name())) {
  inner_ = std::make_unique<InProcessExecutor>(plan_, *backend_);
}

RankProcessExecutor::RankProcessExecutor(std::unique_ptr<Executor> local, std::shared_ptr<UnitExchange> exchange)
    : local_(std::move(local)), ex_(std::move(exchange)) {}

UnitResult RankProcessExecutor::run_unit(const UnitSpec& spec) {
  auto failed = [&] {
    UnitResult u;
    u.row_id = spec.row_id;
    u.group = spec.group;
    u.error = broken_;
    return u;
  };
  if (!broken_.empty()) return failed();
  const UnitResult mine = local_->run_unit(spec);
  std::vector<UnitResult> got;
  try {
    for (const std::string& t : ex_->allgather(seq_++, to_json(mine).dump())) {
      got.push_back(unit_result_from_json(json::parse(t)));
      if (got.back().row_id != spec.row_id || got.back().group != spec.group)
        throw DeviceError("rank " + std::to_string(got.size() - 1) + " sent unit (" + got.back().row_id + ", group " +
                          std::to_string(got.back().group) + "): the ranks are not at the same unit");
    }
  } catch (const std::exception& e) {
    broken_ = "rank " + std::to_string(ex_->rank()) + ": the exchange of unit (" + spec.row_id + ", group " +
              std::to_string(spec.group) + ") failed: " + e.what() + "; every later unit fails";
    return failed();
  }
  return merge_rank_units(spec, std::move(got));
}

std::unique_ptr<Executor> rank_process_executor(std::unique_ptr<Executor> local, std::shared_ptr<UnitExchange> exchange,
                                                std::chrono::milliseconds unit_timeout) {
  std::vector<std::shared_ptr<Executor>> one{std::shared_ptr<Executor>(std::move(local))};
  return std::make_unique<RankProcessExecutor>(std::make_unique<RankThreadsExecutor>(one, unit_timeout),
                                               std::move(exchange));
}

void RankThreadsExecutor::drop_row(const std::string& row_id) {
  if (!broken_.empty()) return;  // a hung rank's executor may still be running: never touch it
  for (auto& e : ranks_) e->drop_row(row_id);
}

BackendIdentity identity_of(Backend& b) { return {b.name(), b.timer(), b.arch(), b.environment(), b.protocol()}; }

BackendIdentity identity_from_child(const BackendFactory& make_backend) {
  std::string failure;
  std::string text = run_in_child(
      [&] {
        auto b = make_backend();
        BackendIdentity id = identity_of(*b);
        return json{{"name", id.name},
                    {"timer", id.timer},
                    {"arch", id.arch},
                    {"environment", id.environment},
                    {"protocol", id.protocol}}
            .dump();
      },
      &failure);
  if (!failure.empty()) throw DeviceError("--isolate: the child that opens the device failed: " + failure);
  json j = json::parse(text);
  return {j.at("name"), j.at("timer"), j.at("arch"), j.at("environment"), j.at("protocol")};
}

}  // namespace kgate
