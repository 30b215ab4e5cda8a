#pragma once
// The seam between the campaign and a device: a Backend makes a RowContext per (row, unit); the
// context checks correctness, warms up and times one arm call at a time.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/cases.hpp"
#include "harness/core/family.hpp"
#include "harness/core/records.hpp"
#include "harness/core/registry.hpp"

namespace kgate {

class RowContext {
 public:
  virtual ~RowContext() = default;
  virtual Correctness check(const Implementation& impl) = 0;
  virtual Sample time_once(const Implementation& impl) = 0;     // flush (outside), then one timed call
  virtual double warm_call_us(const Implementation& impl) = 0;  // one untimed-by-protocol call, its cost
  // The launch configuration the arm's heuristics chose for this row (printed into the row);
  // null where the arm has no choice to make.
  virtual json config(const Implementation&) const { return nullptr; }
  // Why the arm refuses this row's inputs, as text; "" when it takes them. The refusals that need
  // the row's arguments (an export arm's supports() over the family's C args) are asked here,
  // before any call, so a policy may accept them as it accepts supports(params).
  virtual std::string refusal(const Implementation&) { return ""; }

  // The timed-call proof (DESIGN.md, timing protocol: "Timed calls are proven too"). A row has K
  // input sets: set 0 is made from the row's seed with the context, add_input_sets makes sets
  // 1..K-1 from seeds derived from the run seed (once, after prepare, before any check). Every
  // set holds the per-call inputs (a cache or weights may be shared by all sets) and has its own
  // oracle. The executor, outside every timed window:
  //   load_input(k)           before each call (check, warm-up, timed): the buffers the arms read
  //                           now hold set k's contents, at the same addresses (a captured graph
  //                           stays valid; an arm that memoizes by pointer sees new contents);
  //   prepare_verified(impl)  before a call it will verify: outputs poisoned, in-place state (a
  //                           state pool) restored to the pristine copy, so the oracle follows
  //                           exactly one update from a known state;
  //   verify(impl)            after that call: its outputs against the loaded set's oracle.
  // check(impl) is one verified call on the loaded set. A context that cannot prove its timed
  // calls keeps these defaults, and a run refuses it (never a check that passes by default).
  virtual void add_input_sets(const std::vector<uint64_t>& seeds) {
    (void)seeds;
    throw std::logic_error("this family's row context does not rotate input sets");
  }
  virtual int input_sets() const { return 1; }
  virtual void load_input(int set) {
    if (set != 0) throw std::logic_error("this family's row context has one input set");
  }
  virtual void prepare_verified(const Implementation&) {
    throw std::logic_error("this family's row context cannot verify timed calls");
  }
  virtual Correctness verify(const Implementation&) {
    throw std::logic_error("this family's row context cannot verify timed calls");
  }
};

// Thrown at an agreement of a job's ranks (Backend::ranks_agree, and the agreements a GPU rank makes
// before every sample and after every warm-up call) when another rank failed the unit: this rank
// stops the unit there, with every rank at the same point of its collectives, and returns it
// unfinished (UnitResult::abandoned); the merged unit carries the failing rank's cause.
struct RankAbandoned : std::runtime_error {
  RankAbandoned() : std::runtime_error("abandoned: another rank of the job failed this unit") {}
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;   // "cpu" | "cuda"
  virtual std::string timer() const = 0;  // "host" | "cupti" | "events"
  // The architecture arms are matched against: "host" on the CPU backend, "sm_90" on an H200.
  virtual std::string arch() const = 0;
  virtual json environment() const = 0;
  virtual json protocol() const = 0;  // flush bytes, cold/warm, ...
  virtual std::unique_ptr<RowContext> prepare(const Family& fam, const CaseRow& row, uint64_t seed) = 0;
  // Ranks of a job: true when every rank's `ok` was true. Every rank calls it at the same points
  // of a unit (InProcessExecutor: after the arms' refusals, after preparing, after each arm's
  // check, after the checks, after the timing), and a rank that failed the unit between two of
  // them calls it once with ok = false, where the others next call it (for a GPU rank that may
  // be a sample's or warm-up call's agreement, which then throws RankAbandoned): so one rank's
  // failure ends the unit on every rank at once, and no rank is left waiting in a collective
  // until --rank-timeout. A rank alone (one GPU, simulated ranks, the CPU): `ok`.
  virtual bool ranks_agree(bool ok) { return ok; }
  // No other rank runs this unit beside this backend: the executor may retry a unit on its own.
  virtual bool alone() const { return true; }
};

std::unique_ptr<Backend> make_cpu_backend();

// Whether a backend measures the device's peaks for environment.peaks (process-wide; `kgate run
// --no-peaks` turns it off, e.g. under compute-sanitizer, whose racecheck cannot run cuBLAS's
// GEMM). Off, the record keeps its shape: both rates null, the methods say why.
inline bool g_measure_peaks = true;
inline json unmeasured_peaks() {
  return {{"copy_bytes_per_s", nullptr},
          {"copy_method", "not measured (--no-peaks)"},
          {"gemm_bf16_flops_per_s", nullptr},
          {"gemm_method", "not measured (--no-peaks)"}};
}

// How an arm's call reaches the device (`kgate run --launch`, recorded as protocol.launch;
// process-wide, read when a backend is made, like g_measure_peaks): "direct", every call launched
// as the arm issues it; "graph", each arm's call captured into a CUDA graph for its row (again for
// each unit: harness/gpu/NOTES.md) and every call a replay of it (GPU backend only: the CPU backend
// refuses it).
inline const std::vector<std::string> kLaunchModes = {"direct", "graph"};
inline std::string g_launch_mode = "direct";

// Compares out against ref element-wise; `unwritten` marks elements never written.
Correctness compare_outputs(const std::vector<double>& out, const std::vector<double>& ref,
                            const std::vector<bool>& unwritten, const Tolerance& tol,
                            const std::function<std::string(size_t)>& coords);

}  // namespace kgate
