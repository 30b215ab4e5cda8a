// calib on the GPU: the row context. Each spin reports its own clock, which the receipt keeps
// beside the timer's value; the copy is checked byte for byte.
#include <cuda_runtime.h>

#include <vector>

#include "harness/core/intervals.hpp"
#include "harness/gpu/arm_context.hpp"
#include "kernels/calib/config.hpp"
#include "kernels/calib/family.hpp"
#include "kernels/calib/launch.hpp"

namespace kgate::calib {
namespace {

double g_clock_mhz = 0;  // SM clock measured at start-up (cycles per microsecond)

class Context final : public gpu::ArmContext<Arm> {
 public:
  Context(const CaseRow& row, gpu::GpuBackend& be) : ArmContext(be), p_(Problem::from_json(row.params)) {
    if (g_clock_mhz == 0) g_clock_mhz = measure_sm_clock_mhz(be.stream());
    out_ = gpu::DeviceBuffer(3 * 3 * sizeof(unsigned long long));
    if (p_.kind == "copy") {
      src_ = gpu::DeviceBuffer(static_cast<size_t>(p_.bytes));
      dst_ = gpu::DeviceBuffer(static_cast<size_t>(p_.bytes));
      std::vector<unsigned char> h(static_cast<size_t>(p_.bytes));
      uint64_t x = 0x243F6A8885A308D3ull;
      for (auto& b : h) b = static_cast<unsigned char>((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56);
      src_.upload(h.data(), h.size());
      host_src_ = std::move(h);
    }
    args_ = calib_args{p_.abi_kind(),
                       spin_cycles(static_cast<double>(p_.us), g_clock_mhz),
                       delay_cycles(p_, g_clock_mhz),
                       out_.as<unsigned long long>(),
                       dst_.get(),
                       src_.get(),
                       static_cast<unsigned long long>(src_.bytes()),
                       s2_.get(),
                       fork_.get(),
                       join_.get()};
  }

  Correctness check(const Implementation& impl) override {
    Correctness c;
    if (p_.kind == "copy") {
      KGATE_CUDA(cudaMemset(dst_.get(), 0xde, dst_.bytes()));
      launch(impl, be_.stream());
      KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
      std::vector<unsigned char> h(host_src_.size());
      dst_.download(h.data(), h.size());
      c.elements = static_cast<int64_t>(h.size());
      for (size_t i = 0; i < h.size(); ++i) c.mismatches += h[i] != host_src_[i];
      c.note = "copied bytes compared exactly";
    } else {
      KGATE_CUDA(cudaMemset(out_.get(), 0, out_.bytes()));
      launch(impl, be_.stream());
      KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
      unsigned long long h[9];
      out_.download(h, sizeof h);
      int kernels = p_.kind == "spin" ? 1 : 3;
      for (int k = 0; k < kernels; ++k) {
        long long want = k == 1 ? args_.delay_cycles : args_.cycles;
        ++c.elements;
        if (static_cast<long long>(h[3 * k]) < want || h[3 * k + 2] < h[3 * k + 1]) ++c.mismatches;
      }
      c.note =
          "each spin ran at least its requested cycles; SM clock at start-up " + std::to_string(g_clock_mhz) + " MHz";
    }
    c.passed = c.mismatches == 0 && c.elements > 0;
    return c;
  }

  Sample time_once(const Implementation& impl) override {
    Sample s = GpuRowContext::time_once(impl);
    if (p_.kind == "copy") return s;
    unsigned long long h[9];
    out_.download(h, sizeof h);  // after the timer synchronized; outside the measured window
    if (p_.kind == "spin") {
      s.self_us = static_cast<double>(h[0]) / g_clock_mhz;
    } else {
      std::vector<Interval> iv;
      for (int k = 0; k < 3; ++k) iv.push_back({h[3 * k + 1], h[3 * k + 2], 0});
      s.self_us = static_cast<double>(union_length(iv)) / 1000.0;
    }
    return s;
  }

  // Every arm's config is the row's: what it asked for and the cycles that became.
  json config(const Implementation&) const override {
    json j = p_.to_json();
    j["cycles"] = args_.cycles;
    j["delay_cycles"] = args_.delay_cycles;
    j["sm_clock_mhz"] = g_clock_mhz;
    return j;
  }

 protected:
  void call(const Arm& a, cudaStream_t s) override { a.launch(args_, s); }

 private:
  Problem p_;
  gpu::DeviceBuffer out_, src_, dst_;
  std::vector<unsigned char> host_src_;
  gpu::Stream s2_;
  gpu::Event fork_, join_;
};

}  // namespace

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t, gpu::GpuBackend& be) {
  return std::make_unique<Context>(row, be);
}

}  // namespace kgate::calib
