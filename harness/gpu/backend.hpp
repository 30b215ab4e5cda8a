#pragma once
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "harness/run/campaign.hpp"
#include "harness/gpu/device.hpp"
#include "harness/gpu/timer.hpp"

namespace kgate::gpu {

class GpuBackend final : public Backend {
 public:
  // Measures on the GPU `ordinal`: the constructing thread (a rank's) is the one that measures.
  GpuBackend(const std::string& timer, bool warm, int ordinal = 0);
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
  // One protocol sample: flush L2 (unless --warm), synchronize, measure the launch.
  Sample sample(const Launch& launch);
  // One untimed-by-protocol call (warm-up), timed with events so warm-up can reach its budget.
  double warm_call(const Launch& launch);

 private:
  Device device_;  // first: the timers' events and subscription belong to it
  std::unique_ptr<Timer> timer_;
  std::unique_ptr<Timer> events_;
  std::string fallback_reason_;
  bool warm_;
};

// Base of every family's GPU row context: timing and warm-up go through the backend.
// Methods with lambdas are out of line (backend.cpp): this header is compiled by both nvcc and
// g++, and an inline lambda's closure layout can differ between the two front ends while the
// linker keeps one copy of each inline function (seen as a crash on the H200).
class GpuRowContext : public RowContext {
 public:
  explicit GpuRowContext(GpuBackend& be) : be_(be) {}
  Sample time_once(const Implementation& impl) override;
  double warm_call_us(const Implementation& impl) override;

 protected:
  virtual void launch(const Implementation& impl, cudaStream_t s) = 0;
  GpuBackend& be_;
};

void launch_prime_kernel(cudaStream_t s);

}  // namespace kgate::gpu
