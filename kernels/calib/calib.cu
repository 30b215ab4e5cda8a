// calib: kernels whose true duration is known, to prove the timer.
//  - spin:    one thread spins for `us` microseconds of SM clock (clock64 cycles converted with
//             the SM clock measured at start-up); it reports its own cycle count.
//  - overlap: stream 1 spins T = us; stream 2 spins (1 - overlap_pct/100) T, then T: the two
//             T-long kernels overlap by overlap_pct % of T. Union = (2 - f) T, sum = (3 - f) T.
//             Each kernel reports its own globaltimer interval; their union is the expected time.
//  - copy:    cudaMemcpyAsync of `bytes` bytes device to device (no self clock).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "harness/core/cases.hpp"
#include "harness/core/intervals.hpp"
#include "harness/gpu/backend.hpp"
#include "harness/gpu/gpu.hpp"

namespace kgate::calib {
namespace {

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// out[0] = cycles spun, out[1] = globaltimer at start, out[2] = at end (ns).
__global__ void calib_spin(long long cycles, unsigned long long* out) {
  unsigned long long g0 = globaltimer();
  long long t0 = clock64(), t1;
  do t1 = clock64(); while (t1 - t0 < cycles);
  unsigned long long g1 = globaltimer();
  out[0] = static_cast<unsigned long long>(t1 - t0);
  out[1] = g0;
  out[2] = g1;
}

double g_clock_mhz = 0;  // SM clock measured at start-up (cycles per microsecond)

double measure_clock_mhz(cudaStream_t s) {
  gpu::DeviceBuffer out(3 * sizeof(unsigned long long));
  unsigned long long h[3];
  double best = 0;
  for (int i = 0; i < 3; ++i) {  // 20 ms spins; keep the last (clocks settle under load)
    calib_spin<<<1, 1, 0, s>>>(40'000'000, out.as<unsigned long long>());
    KGATE_CUDA_LAUNCHED();
    KGATE_CUDA(cudaStreamSynchronize(s));
    out.download(h, sizeof h);
    best = static_cast<double>(h[0]) / (static_cast<double>(h[2] - h[1]) / 1000.0);
  }
  return best;
}

struct CalibParams {
  std::string kind;
  int64_t us, overlap_pct, bytes;
};

class Context final : public gpu::GpuRowContext {
 public:
  Context(const CaseRow& row, gpu::GpuBackend& be) : GpuRowContext(be) {
    p_.kind = row.params["kind"];
    p_.us = row.params["us"];
    p_.overlap_pct = row.params["overlap_pct"];
    p_.bytes = row.params["bytes"];
    if (g_clock_mhz == 0) g_clock_mhz = measure_clock_mhz(be.stream());
    cycles_ = static_cast<long long>(static_cast<double>(p_.us) * g_clock_mhz);
    delay_cycles_ = static_cast<long long>(static_cast<double>(p_.us) * (100 - p_.overlap_pct) / 100.0 * g_clock_mhz);
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
        long long want = k == 1 ? delay_cycles_ : cycles_;
        ++c.elements;
        if (static_cast<long long>(h[3 * k]) < want || h[3 * k + 2] < h[3 * k + 1]) ++c.mismatches;
      }
      c.note = "each spin ran at least its requested cycles; SM clock at start-up " + std::to_string(g_clock_mhz) + " MHz";
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

 protected:
  void launch(const Implementation&, cudaStream_t s) override {
    auto* o = out_.as<unsigned long long>();
    if (p_.kind == "spin") {
      calib_spin<<<1, 1, 0, s>>>(cycles_, o);
      KGATE_CUDA_LAUNCHED();
    } else if (p_.kind == "overlap") {
      KGATE_CUDA(cudaEventRecord(fork_.get(), s));
      KGATE_CUDA(cudaStreamWaitEvent(s2_.get(), fork_.get(), 0));
      calib_spin<<<1, 1, 0, s>>>(cycles_, o);
      KGATE_CUDA_LAUNCHED();
      calib_spin<<<1, 1, 0, s2_.get()>>>(delay_cycles_, o + 3);
      KGATE_CUDA_LAUNCHED();
      calib_spin<<<1, 1, 0, s2_.get()>>>(cycles_, o + 6);
      KGATE_CUDA_LAUNCHED();
      KGATE_CUDA(cudaEventRecord(join_.get(), s2_.get()));
      KGATE_CUDA(cudaStreamWaitEvent(s, join_.get(), 0));
    } else {
      KGATE_CUDA(cudaMemcpyAsync(dst_.get(), src_.get(), src_.bytes(), cudaMemcpyDeviceToDevice, s));
    }
  }

 private:
  CalibParams p_;
  long long cycles_ = 0, delay_cycles_ = 0;
  gpu::DeviceBuffer out_, src_, dst_;
  std::vector<unsigned char> host_src_;
  gpu::Stream s2_;
  gpu::Event fork_, join_;
};

}  // namespace

void install(Registry& r) {
  using PS = ParamSpec;
  Family f;
  f.name = "calib";
  f.summary = "timer calibration: spin kernels of known duration, an overlapping pair, a D2D copy (GPU only)";
  f.params = {
      {"kind", PS::Kind::String, true, 0, 0, {"spin", "overlap", "copy"}, {}, "what the arm launches"},
      {"us", PS::Kind::Int, false, 0, 10'000'000, {}, 10, "spin duration, microseconds of SM clock (0: an empty spin)"},
      {"overlap_pct", PS::Kind::Int, false, 0, 100, {}, 50, "overlap: percent of T the two kernels overlap"},
      {"bytes", PS::Kind::Int, false, 1, int64_t(1) << 36, {}, 1 << 24, "copy: bytes"},
  };
  f.tolerance = [](const json&) { return Tolerance{0, 0}; };
  f.make_gpu_context = [](const CaseRow& row, uint64_t, void* be) -> std::unique_ptr<RowContext> {
    return std::make_unique<Context>(row, *static_cast<gpu::GpuBackend*>(be));
  };
  r.add_family(std::move(f));
  // Two registrations of one implementation: the A/A pair (baseline and candidate identical).
  for (const char* name : {"calib.spin", "calib.spin_twin"})
    r.add({name, "calib", "cuda", "baseline", {"sm_90a"}, {"calib_spin", "memcpy"}, {"kernels/calib/calib.cu"},
           "spin / overlapping spins / D2D copy, per the row's kind", nullptr, nullptr});
}

}  // namespace kgate::calib
