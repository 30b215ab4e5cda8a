#include "harness/gpu/backend.hpp"

#include <cupti.h>
#include <sys/utsname.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "harness/gpu/gpu.hpp"

namespace kgate::gpu {

bool device_present(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string("no CUDA device: ") + cudaGetErrorName(e);
    cudaGetLastError();
    return false;
  }
  if (n == 0) {
    if (why) *why = "no CUDA device";
    return false;
  }
  return true;
}

std::string describe_device(int ordinal) {
  DeviceInfo d = query_device(ordinal);
  return "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) + ": " + d.name + ", " +
         std::to_string(d.sm_count) + " SMs, " + std::to_string(d.l2_bytes >> 20) + " MiB L2, driver " +
         std::to_string(d.driver_version);
}

GpuBackend::GpuBackend(const std::string& timer, bool warm, int ordinal) : device_(ordinal), warm_(warm) {
  events_ = make_event_timer();
  if (timer == "cupti") {
    timer_ = make_cupti_timer(device_, &fallback_reason_);
    if (!timer_) {
      std::fprintf(stderr, "kgate: CUPTI unavailable (%s): falling back to the events timer\n", fallback_reason_.c_str());
      timer_ = make_event_timer();
    }
  } else if (timer == "events") {
    timer_ = make_event_timer();
  } else {
    throw InputError("--timer: '" + timer + "' is not cupti or events");
  }
  // A throw-away first pass primes CUPTI (its first records carry one-time setup costs).
  for (int i = 0; i < 3; ++i) timer_->measure([](cudaStream_t s) { launch_prime_kernel(s); }, device_.stream());
}

json GpuBackend::environment() const {
  json e;
  e["backend"] = "cuda";
  e["gpus"] = json::array({device_.info().to_json()});
  e["nccl_version"] = nccl_version_string();
  uint32_t cupti = 0;
  cuptiGetVersion(&cupti);
  e["cupti_api_version"] = cupti;
  utsname u{};
  uname(&u);
  e["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  e["logical_cpus"] = std::thread::hardware_concurrency();
  e["compiler"] = __VERSION__;
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "unknown";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  e["cpu"] = model;
  return e;
}

json GpuBackend::protocol() const {
  json p;
  p["cold_l2"] = !warm_;
  p["flush_bytes"] = warm_ ? 0 : device_.flusher().bytes();
  p["flush"] = warm_ ? "none (--warm)"
                     : "persisting (evict_last) lines reset, then cudaMemsetAsync over 2x L2, before every sample, "
                       "outside the measured window";
  p["timer_requested_fallback"] = fallback_reason_.empty() ? json(nullptr) : json(fallback_reason_);
  p["persisting_l2"] = warm_ ? "reset before every row" : "reset before every row and every sample";
  return p;
}

std::unique_ptr<RowContext> GpuBackend::prepare(const Family& fam, const CaseRow& row, uint64_t seed) {
  if (!fam.make_gpu_context) throw InputError("family '" + fam.name + "' has no GPU context");
  device_.make_current();
  KGATE_CUDA(cudaCtxResetPersistingL2Cache());
  return fam.make_gpu_context(row, seed, this);
}

Sample GpuBackend::sample(const Launch& launch) {
  device_.make_current();
  if (!warm_) device_.flusher().flush(device_.stream());
  KGATE_CUDA(cudaDeviceSynchronize());
  Measurement m = timer_->measure(launch, device_.stream());
  Sample s;
  s.us = m.us;
  s.signature = m.signature;
  s.events_us = m.events_us;
  s.sm_clock_mhz = current_sm_clock_mhz(device_.info().pci_bus_id);
  return s;
}

Sample GpuRowContext::time_once(const Implementation& impl) {
  return be_.sample([this, &impl](cudaStream_t s) { launch(impl, s); });
}
double GpuRowContext::warm_call_us(const Implementation& impl) {
  return be_.warm_call([this, &impl](cudaStream_t s) { launch(impl, s); });
}

double GpuBackend::warm_call(const Launch& launch) {
  device_.make_current();
  return events_->measure(launch, device_.stream()).us;
}

std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm, int ordinal) {
  return std::make_unique<GpuBackend>(timer, warm, ordinal);
}
std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm) { return make_backend(timer, warm, 0); }

}  // namespace kgate::gpu
