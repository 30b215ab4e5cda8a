#pragma once
// The executor seam: run_unit(UnitSpec) -> UnitResult. The campaign hands every unit of its plan
// to one executor and journals what comes back; how and where the unit runs is the executor's
// business: in this process, in a child process per unit (--isolate), and next, on rank threads
// (one GPU each) or rank processes started by a cluster launcher.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/records.hpp"
#include "harness/run/backend.hpp"

namespace kgate {

struct RunConfig;  // harness/run/campaign.hpp

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs one unit. Device and runtime errors are returned in UnitResult::error (the row fails,
  // the campaign goes on); an arm or context refusing the case (InputError) comes back as a
  // not_supported check. Never throws for a unit's own failure.
  virtual UnitResult run_unit(const UnitSpec& spec) = 0;
  // The campaign will send no more units of this row (it failed, or was refused): free its inputs.
  virtual void drop_row(const std::string& /*row_id*/) {}
};

// Host seconds by phase, in the process that ran the units. The timed-call proof's own cost is
// taken out of the phase it happened in and kept by part: the input sets made and loaded before
// each call, the checks on the second seed, the verified calls prepared and checked; proof_s() is
// their sum.
struct PhaseTimes {
  double prepare_s = 0, check_s = 0, warmup_s = 0, timing_s = 0;
  double proof_inputs_s = 0, proof_checks_s = 0, proof_verified_s = 0;
  double proof_s() const { return proof_inputs_s + proof_checks_s + proof_verified_s; }
  // Every field in one order: to_vector() writes them, add() adds such a vector (throws on another
  // length).
  static constexpr double PhaseTimes::*kFields[] = {
      &PhaseTimes::prepare_s,      &PhaseTimes::check_s,        &PhaseTimes::warmup_s,        &PhaseTimes::timing_s,
      &PhaseTimes::proof_inputs_s, &PhaseTimes::proof_checks_s, &PhaseTimes::proof_verified_s};
  std::vector<double> to_vector() const;
  void add(const std::vector<double>& t);
};

// The timed-call proof (DESIGN.md, "Timed calls are proven too").
// The seeds of a row's input sets 1..K-1, from the run seed and the row's own seed (set 0's).
std::vector<uint64_t> derived_input_seeds(uint64_t run_seed, uint64_t row_seed, int input_sets);
// Which of an arm's `calls` timed calls of a unit are verified (index = call, from 0): the last,
// and each other with probability `share` from the seeded stream; then, where there are two calls
// or more, both parities of the call index and two input sets (call % input_sets) are made sure of,
// so an arm that writes on alternate calls, or memoizes one set's output, meets a verified call.
std::vector<bool> verified_calls(int64_t calls, double share, uint64_t seed, int input_sets);
// "arm X: timed call 17 of group 2 (input set 1): y[3] = 0, reference 0.25; 2 of 1000 elements
// wrong (...)": a failed verified call (call and group from 0, printed from 1).
std::string failed_call_text(const std::string& arm, int64_t call, int group, int set, const Correctness& c);
// "y[3] = 0, reference 0.25; 2 of 1000 elements wrong (...)": what a failed check found.
std::string wrong_elements_text(const Correctness& c);
// Whether a rank's unit had a failed verified call (the row is incorrect, its inputs dropped).
bool proof_failed(const RankResult& r);

// True when an arm built for `archs` runs on a device of architecture `device` ("host",
// "sm_90"): an exact match, or the arch-specific form ("sm_90a") of the device's own arch.
bool arch_matches(const std::vector<std::string>& archs, const std::string& device);

// Runs units on a backend of this process. A row's inputs (its RowContext) are made once and
// kept across the row's units until its last one.
class InProcessExecutor final : public Executor {
 public:
  InProcessExecutor(const Plan& plan, Backend& backend);
  UnitResult run_unit(const UnitSpec& spec) override;
  void drop_row(const std::string& row_id) override { contexts_.erase(row_id); }
  const PhaseTimes& phases() const { return phases_; }

 private:
  RowCheck check_row(const UnitSpec& spec, std::unique_ptr<RowContext>& ctx);
  // One arm's check on input sets 0 and 1 (the second seed's is the proof's cost).
  void check_arm(const PlanArm& a, RowContext& ctx, RowCheck& rc);
  // The arms that refuse the row on this rank (arm -> why): built for another architecture, or
  // the arm's supports() says no; with the row's context, also what the context's refusal() says
  // (an export's supports() over the row's C args). Every unit of the row gets the same answer.
  std::map<std::string, std::string> refusals(const CaseRow& row, RowContext* ctx = nullptr) const;
  // Of `mine`, the accepted refusals (Plan::may_refuse) as every rank sees them: an arm refused
  // on any rank is left out on all, so the ranks time the same arms.
  std::map<std::string, std::string> agreed_refusals(const std::map<std::string, std::string>& mine);
  RankResult time_unit(const UnitSpec& spec, RowContext& ctx);
  void prepare_row(const UnitSpec& spec, std::unique_ptr<RowContext>& ctx);
  // The ranks' agreements (Backend::ranks_agree): go on only where every rank is ok (a rank that
  // is not returns its own result); RankAbandoned where another rank failed.
  void agree_or_abandon(bool ok);
  // This rank failed the unit: says so at the others' next agreement.
  void tell_ranks_failed();
  const Plan& plan_;
  Backend& backend_;
  std::map<std::string, std::unique_ptr<RowContext>> contexts_;
  PhaseTimes phases_;
};

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// Runs every unit in a child process (fork), on a backend the child makes: a unit that dies
// (a faulting kernel, an abort, a signal) fails its row with the cause recorded, and the
// parent never opens the device (a forked CUDA context is unusable). A unit still running after
// `unit_timeout` (a hung kernel) is killed with its process group and fails its row, saying so;
// a child dies with its parent (PR_SET_PDEATHSIG), so a killed campaign leaves none running.
class IsolatedExecutor final : public Executor {
 public:
  IsolatedExecutor(const Plan& plan, BackendFactory make_backend,
                   std::optional<std::chrono::milliseconds> unit_timeout = std::nullopt);
  UnitResult run_unit(const UnitSpec& spec) override;
  // The children's host seconds by phase, summed over the units that came back.
  const PhaseTimes& phases() const { return phases_; }

 private:
  const Plan& plan_;
  BackendFactory make_backend_;
  std::optional<std::chrono::milliseconds> timeout_;
  PhaseTimes phases_;
};

// Runs every unit on all ranks at once, one thread per rank, each rank on its own executor (rank
// r's backend owns GPU r), and merges what they return into one unit: the ranks' samples in rank
// order (the campaign takes the maximum over ranks per sample), a check that passes only where
// every rank's passed (otherwise the first failing rank's, its error prefixed "rank r: "), and the
// first rank's error fails the unit the same way; a rank that stopped only because another failed
// (RankAbandoned) is not the cause named. A rank that has not returned within
// `unit_timeout` fails the unit (naming the ranks it waited for) and every later one: its thread
// cannot be stopped, so the runner never hands that rank's executor another call.
class RankThreadsExecutor final : public Executor {
 public:
  RankThreadsExecutor(std::vector<std::shared_ptr<Executor>> ranks, std::chrono::milliseconds unit_timeout);
  UnitResult run_unit(const UnitSpec& spec) override;
  void drop_row(const std::string& row_id) override;

 private:
  std::vector<std::shared_ptr<Executor>> ranks_;
  std::chrono::milliseconds timeout_;
  std::string broken_;  // non-empty once a rank hung: why every later unit fails
};

// "0, 2, 5": the ranks r in [0, world_size) for which missing(r), for errors naming the ranks a
// bounded wait gave up on.
std::string missing_ranks(size_t world_size, const std::function<bool(size_t)>& missing);

// One unit's per-rank results (index = rank) merged as RankThreadsExecutor describes: rank-ordered
// samples, a check that passes only where every rank's did, the first rank's error named "rank r: "
// (an abandoned rank's only where no rank gave a cause).
UnitResult merge_rank_units(const UnitSpec& spec, std::vector<UnitResult> got);

// Rank r's own executor in a rank-thread run: its plan (made from the run's config, like the
// campaign's), its backend (rank r's GPU) and an in-process executor over both.
class RankPlanExecutor final : public Executor {
 public:
  RankPlanExecutor(const RunConfig& cfg, std::unique_ptr<Backend> backend);
  UnitResult run_unit(const UnitSpec& spec) override { return inner_->run_unit(spec); }
  void drop_row(const std::string& row_id) override { inner_->drop_row(row_id); }

 private:
  std::unique_ptr<Backend> backend_;
  Plan plan_;
  std::unique_ptr<InProcessExecutor> inner_;
};

// How rank processes hand each other one string per unit: allgather(seq, mine) returns every
// rank's string (index = rank) once all have given theirs, or throws DeviceError when a rank has
// not within the exchange's bound. seq counts the calls (every rank makes the same ones).
class UnitExchange {
 public:
  virtual ~UnitExchange() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  virtual std::vector<std::string> allgather(uint64_t seq, const std::string& mine) = 0;
};

// A rank process's executor: its own unit on `local` (this process's GPU), then every rank's
// result through the exchange, merged (merge_rank_units): each rank process journals and seals the
// same merged rows. A failed exchange (a rank died or hung) fails the unit and every later one.
class RankProcessExecutor final : public Executor {
 public:
  RankProcessExecutor(std::unique_ptr<Executor> local, std::shared_ptr<UnitExchange> exchange);
  UnitResult run_unit(const UnitSpec& spec) override;
  void drop_row(const std::string& row_id) override { local_->drop_row(row_id); }

 private:
  std::unique_ptr<Executor> local_;
  std::shared_ptr<UnitExchange> ex_;
  uint64_t seq_ = 0;
  std::string broken_;
};

// A rank process's executor as `kgate run --rendezvous` makes it: its own unit through the thread
// runner with one rank, so that it too is bounded by `unit_timeout` (a collective a dead peer
// never joins blocks it), then the exchange.
std::unique_ptr<Executor> rank_process_executor(std::unique_ptr<Executor> local, std::shared_ptr<UnitExchange> exchange,
                                                std::chrono::milliseconds unit_timeout);

// Backend identity as a receipt records it; with --isolate a child process reports it.
struct BackendIdentity {
  std::string name, timer, arch;
  json environment, protocol;
};
BackendIdentity identity_of(Backend& b);
BackendIdentity identity_from_child(const BackendFactory& make_backend);

}  // namespace kgate
