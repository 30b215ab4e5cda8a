// calib on the GPU: the row context. Each spin reports its own clock, which the receipt keeps
// beside the timer's value; the copy is checked byte for byte. What a verified call is checked
// on: a spin or overlap call's output is its clock record (zeroed before the call: each kernel
// must have run at least its cycles), which no input set changes (a spin reads no data: its K
// sets are the one request, and the check still fails a call that did not spin); a copy's output
// is the destination, its source rotating over K seeded byte patterns.
#include <cuda_runtime.h>

#include <vector>

#include "harness/core/intervals.hpp"
#include "harness/gpu/arm_context.hpp"
#include "harness/gpu/compare_device.hpp"
#include "harness/gpu/proof.hpp"
#include "kernels/calib/config.hpp"
#include "kernels/calib/family.hpp"
#include "kernels/calib/launch.hpp"

namespace kgate::calib {
namespace {

double g_clock_mhz = 0;              // SM clock measured at start-up (cycles per microsecond)
constexpr int64_t kCopyTile = 4096;  // bytes: the unit a verified copy's mismatches are counted in

// A copy row's source bytes: an LCG's high bytes from state x.
std::vector<unsigned char> copy_source(size_t n, uint64_t x) {
  std::vector<unsigned char> h(n);
  for (auto& b : h) b = static_cast<unsigned char>((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 56);
  return h;
}

class Context final : public gpu::ArmContext<Arm> {
 public:
  Context(const CaseRow& row, gpu::GpuBackend& be) : ArmContext(be), p_(Problem::from_json(row.params)) {
    if (g_clock_mhz == 0) g_clock_mhz = measure_sm_clock_mhz(be.stream());
    out_ = gpu::DeviceBuffer(3 * 3 * sizeof(unsigned long long));
    if (p_.kind == "copy") {
      src_ = gpu::DeviceBuffer(static_cast<size_t>(p_.bytes));
      dst_ = gpu::DeviceBuffer(static_cast<size_t>(p_.bytes));
      host_srcs_.push_back(copy_source(static_cast<size_t>(p_.bytes), 0x243F6A8885A308D3ull));
      src_.upload(host_srcs_[0].data(), host_srcs_[0].size());
      sets_.bind({&src_}, be.stream());
    } else {
      sets_.bind({}, be.stream());
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
    prepare_verified(impl);
    launch(impl, be_.stream());
    return verified(false);
  }

  void add_input_sets(const std::vector<uint64_t>& seeds) override {
    for (uint64_t seed : seeds) {
      if (p_.kind != "copy") {
        sets_.add([](size_t, gpu::DeviceBuffer&) {});
        continue;
      }
      host_srcs_.push_back(copy_source(static_cast<size_t>(p_.bytes), seed));
      sets_.add([&](size_t, gpu::DeviceBuffer& master) { master.upload(host_srcs_.back().data(), master.bytes()); });
    }
  }
  int input_sets() const override { return sets_.size(); }
  void load_input(int set) override { sets_.load(set, be_.stream()); }
  // The output poisoned on the stream: the copy's destination with 0xde, the clock record zeroed.
  void prepare_verified(const Implementation&) override {
    if (p_.kind == "copy")
      KGATE_CUDA(cudaMemsetAsync(dst_.get(), 0xde, dst_.bytes(), be_.stream()));
    else
      KGATE_CUDA(cudaMemsetAsync(out_.get(), 0, out_.bytes(), be_.stream()));
  }

  // A timed copy is compared on the device with its set's source (exactly, counted by 4 KiB
  // tile), not downloaded per call; a correctness check compares the bytes on the host.
  Correctness verify(const Implementation&) override { return verified(true); }

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
  Correctness verified(bool on_device) {
    KGATE_CUDA(cudaStreamSynchronize(be_.stream()));
    Correctness c;
    if (p_.kind == "copy" && on_device && dst_.bytes() % kCopyTile == 0) {
      int64_t first = -1;
      c.elements = static_cast<int64_t>(dst_.bytes() / kCopyTile);
      c.mismatches = gpu::differing_tiles(dst_.get(), sets_.master(sets_.loaded(), 0).get(), 0, c.elements, kCopyTile,
                                          nullptr, &first, be_.stream());
      c.note = "copied bytes compared exactly on the device, by 4 KiB tile";
      if (first >= 0) c.worst = "dst tile " + std::to_string(first);
    } else if (p_.kind == "copy") {
      const std::vector<unsigned char>& want = host_srcs_.at(static_cast<size_t>(sets_.loaded()));
      std::vector<unsigned char> h(want.size());
      dst_.download(h.data(), h.size());
      c.elements = static_cast<int64_t>(h.size());
      for (size_t i = 0; i < h.size(); ++i) c.mismatches += h[i] != want[i];
      c.note = "copied bytes compared exactly";
    } else {
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

  Problem p_;
  gpu::DeviceBuffer out_, src_, dst_;
  std::vector<std::vector<unsigned char>> host_srcs_;  // per input set, copy rows
  gpu::InputSets sets_;                                // the copy's source; none for a spin
  gpu::Stream s2_;
  gpu::Event fork_, join_;
};

}  // namespace

std::unique_ptr<RowContext> make_gpu_context(const CaseRow& row, uint64_t, gpu::GpuBackend& be) {
  return std::make_unique<Context>(row, be);
}

}  // namespace kgate::calib
