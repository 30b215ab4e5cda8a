#pragma once
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/cases.hpp"
#include "harness/core/family.hpp"
#include "harness/core/records.hpp"
#include "harness/core/registry.hpp"
#include "harness/gpu/device.hpp"
#include "harness/gpu/peer_table.hpp"
#include "harness/gpu/timer.hpp"
#include "harness/run/backend.hpp"

namespace kgate::gpu {

// Where a backend's rank sits in its job. world_size 1 (the default): a plain one-GPU run.
// simulated: this one GPU plays all world_size ranks (rank 0; the peers' shards are local buffers
// moved by the copy engine, the calls the candidate makes for peer copies); it proves a pipeline,
// not interconnect speed, and receipts say so (environment.ranks). Otherwise rank `rank` of a
// real job: `comm` its NCCL communicator (ncclComm_t, owned by the job, not the backend) and,
// when the ranks are threads of this process, `peers` for exchanging device pointers.
struct RankRole {
  int rank = 0, world_size = 1;
  bool simulated = false;
  void* comm = nullptr;
  std::shared_ptr<PeerTable> peers;
  std::string runner = "single";  // "single" | "simulated" | "threads" | "processes" (recorded)
  std::shared_ptr<void> job;      // keeps the job's communicators alive while a rank's backend is
};

class GpuBackend final : public Backend {
 public:
  // Measures on the GPU `ordinal`: the constructing thread (a rank's) is the one that measures.
  GpuBackend(const std::string& timer, bool warm, int ordinal = 0, RankRole role = {});
  ~GpuBackend() override;
  std::string name() const override { return "cuda"; }
  std::string timer() const override { return timer_->name(); }
  std::string arch() const override {
    return "sm_" + std::to_string(device_.info().cc_major) + std::to_string(device_.info().cc_minor);
  }
  json environment() const override;
  json protocol() const override;
  std::unique_ptr<RowContext> prepare(const Family& fam, const CaseRow& row, uint64_t seed) override;

  cudaStream_t stream() const { return device_.stream(); }
  const DeviceInfo& device() const { return device_.info(); }
  int ordinal() const { return device_.ordinal(); }
  const RankRole& role() const { return role_; }
  // The job's NCCL communicator (ncclComm_t): the role's, or at world size 1 a one-rank
  // communicator this backend makes on first use (NCCL's all-gather at world size 1 is a copy,
  // and the baseline runs it as users' code does).
  void* nccl_comm();
  // The maximum of v over the job's ranks (an NCCL all-reduce on the role's communicator); v
  // itself where this backend is the only rank or a simulated one. Every rank must call it the
  // same number of times: sample() calls it before every sample (a barrier: the ranks start each
  // sample together) and warm_call() on every call's time, so that every rank's warm-up, which
  // runs until its time budget is spent, makes the same number of calls (a collective arm's calls
  // must pair across ranks). It is also an agreement (ranks_agree): it throws RankAbandoned when
  // a rank that failed the unit said so there instead.
  double agree_max(double v);
  bool ranks_agree(bool ok) override;
  bool alone() const override { return role_.world_size == 1 || role_.simulated; }
  // One protocol sample: the L2 protocol's step (flush unless --warm, synchronize), then the
  // timer's measurement of the launch, whose intervals and activity the sample keeps.
  Sample sample(const Launch& launch);
  // One untimed-by-protocol call (warm-up), timed with events so warm-up can reach its budget.
  double warm_call(const Launch& launch);
  // --launch graph: the row contexts replay each arm's captured call (GpuRowContext::launch).
  bool graph() const { return graph_; }

 private:
  Device device_;  // first: the timers' events and subscription, and the flusher, belong to it
  std::unique_ptr<L2Protocol> l2_;
  std::unique_ptr<Timer> timer_;
  std::unique_ptr<Timer> events_;
  std::string fallback_reason_;
  RankRole role_;
  bool graph_ = false;  // g_launch_mode when made
  // One all-reduce (max) of {ok ? 0 : 1, v} over the job's ranks: {every rank ok, the maximum v}.
  std::pair<bool, double> agree(bool ok, double v);
  void* own_comm_ = nullptr;
  std::unique_ptr<DeviceBuffer> agree_;
};

class ArmGraph;  // backend.cpp: one arm's call, captured and instantiated

// Base of every family's GPU row context: timing and warm-up go through the backend.
// Methods with lambdas are out of line (backend.cpp): this header is compiled by both nvcc and
// g++, and an inline lambda's closure layout can differ between the two front ends while the
// linker keeps one copy of each inline function (seen as a crash on the H200).
class GpuRowContext : public RowContext {
 public:
  explicit GpuRowContext(GpuBackend& be);
  ~GpuRowContext() override;
  Sample time_once(const Implementation& impl) override;
  double warm_call_us(const Implementation& impl) override;
  // The arm's own refusal (arm_refusal); then, under --launch graph, whether its call can be
  // captured: the executor asks before a unit's checks and before its timing, ahead of any call,
  // so the arm's graph is captured here (backend.cpp says how), and a call that cannot be
  // captured refuses the row ("cannot be captured in a CUDA graph: <why>").
  std::string refusal(const Implementation& impl) final;

 protected:
  // Every call of the context (checks, warm-up, samples): the arm's call (launch_call) on `s`,
  // or under --launch graph a replay of its captured graph on `s`.
  void launch(const Implementation& impl, cudaStream_t s);
  virtual void launch_call(const Implementation& impl, cudaStream_t s) = 0;
  virtual std::string arm_refusal(const Implementation&) { return ""; }
  // The bytes of the args the arm's call reads (ArmContext: the family's C args): a graph is
  // captured with them, and captured again when they change.
  virtual std::string call_args() const { return {}; }
  GpuBackend& be_;

 private:
  // Under --launch graph, per arm name: its graph and the args it was captured with, or why it
  // has none.
  struct Captured {
    std::unique_ptr<ArmGraph> graph;
    std::string args, refused;
  };
  const Captured& capture(const Implementation& impl, bool prime);
  const Captured& current(const Implementation& impl);
  std::map<std::string, Captured> graphs_;
};

void launch_prime_kernel(cudaStream_t s);

}  // namespace kgate::gpu
