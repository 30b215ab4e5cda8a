#include "harness/gpu/backend.hpp"

#include <cupti.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "harness/core/numeric.hpp"
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

GpuBackend::GpuBackend(const std::string& timer, bool warm, int ordinal, RankRole role)
    : device_(ordinal),
      l2_(make_l2_protocol(warm, device_.flusher())),
      role_(std::move(role)),
      graph_(g_launch_mode == "graph") {
  if (role_.world_size < 1 || role_.rank < 0 || role_.rank >= role_.world_size)
    throw InputError("rank " + std::to_string(role_.rank) + " of world size " + std::to_string(role_.world_size) +
                     ": not a rank of the job");
  events_ = make_event_timer();
  if (timer == "cupti") {
    timer_ = make_cupti_timer(device_, &fallback_reason_);
    if (!timer_) {
      std::fprintf(stderr, "kgate: CUPTI unavailable (%s): falling back to the events timer\n",
                   fallback_reason_.c_str());
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

namespace {

// The device's measured peaks (environment.peaks), the denominators of "percent of peak" in
// reports. Timed with CUDA events on the backend's stream: 2 warm-up calls, then the best
// (shortest) of 10. Estimated ~0.1-0.3 s together on an H200 (not yet timed there).
constexpr int kPeakWarmups = 2, kPeakReps = 10;

double best_seconds(cudaStream_t s, const std::function<void(cudaStream_t)>& op) {
  Event a, b;
  for (int i = 0; i < kPeakWarmups; ++i) op(s);
  KGATE_CUDA(cudaStreamSynchronize(s));
  float best_ms = 0;
  for (int i = 0; i < kPeakReps; ++i) {
    KGATE_CUDA(cudaEventRecord(a.get(), s));
    op(s);
    KGATE_CUDA(cudaEventRecord(b.get(), s));
    KGATE_CUDA(cudaEventSynchronize(b.get()));
    float ms = 0;
    KGATE_CUDA(cudaEventElapsedTime(&ms, a.get(), b.get()));
    if (i == 0 || ms < best_ms) best_ms = ms;
  }
  return best_ms * 1e-3;
}

// Copy: cudaMemcpyAsync device to device of 1 GiB; rate = 2 GiB (read + write) / time, the
// convention of the shared facts, facts/h200-bandwidth.md.
double measure_copy_bytes_per_s(cudaStream_t s) {
  constexpr size_t kBytes = size_t{1} << 30;
  DeviceBuffer src(kBytes), dst(kBytes);
  KGATE_CUDA(cudaMemsetAsync(src.get(), 0xA5, kBytes, s));
  const double t = best_seconds(s, [&](cudaStream_t st) {
    KGATE_CUDA(cudaMemcpyAsync(dst.get(), src.get(), kBytes, cudaMemcpyDeviceToDevice, st));
  });
  return 2.0 * kBytes / t;
}

// Fills `buf` (n BF16 values) with approximately N(0, 1) data: a 2 MiB block generated on the
// host (seeded), uploaded, then doubled in place on the device up to the buffer's size.
void fill_normal_bf16(const DeviceBuffer& buf, size_t n, uint64_t seed, cudaStream_t s) {
  std::vector<uint16_t> block(std::min<size_t>(n, size_t{1} << 20));
  Rng rng(seed);
  for (auto& v : block) v = f32_to_bf16_bits(rng.normal());
  auto* p = buf.as<uint16_t>();
  KGATE_CUDA(cudaMemcpyAsync(p, block.data(), block.size() * 2, cudaMemcpyHostToDevice, s));
  for (size_t have = block.size(); have < n; have *= 2)
    KGATE_CUDA(cudaMemcpyAsync(p + have, p, std::min(have, n - have) * 2, cudaMemcpyDeviceToDevice, s));
  KGATE_CUDA(cudaStreamSynchronize(s));  // the host block goes out of scope
}

class CublasHandle {
 public:
  CublasHandle() { KGATE_CUBLAS(cublasCreate(&h_)); }
  ~CublasHandle() { KGATE_CUBLAS_NOEXCEPT(cublasDestroy(h_)); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

// GEMM: cublasGemmEx, BF16 A, B, C, FP32 compute, M = N = K = 8192, A transposed (both operands
// K-contiguous, a linear layer's layout), random normal data; rate = 2 M N K / time.
double measure_gemm_bf16_flops_per_s(cudaStream_t s) {
  constexpr int kN = 8192;
  constexpr size_t kElems = size_t{kN} * kN;
  DeviceBuffer a(kElems * 2), b(kElems * 2), c(kElems * 2);
  fill_normal_bf16(a, kElems, 0x6b67617465ull, s);
  fill_normal_bf16(b, kElems, 0x7065616b73ull, s);
  CublasHandle h;
  KGATE_CUBLAS(cublasSetStream(h.get(), s));
  const float alpha = 1.f, beta = 0.f;
  const double t = best_seconds(s, [&](cudaStream_t) {
    KGATE_CUBLAS(cublasGemmEx(h.get(), CUBLAS_OP_T, CUBLAS_OP_N, kN, kN, kN, &alpha, a.get(), CUDA_R_16BF, kN, b.get(),
                              CUDA_R_16BF, kN, &beta, c.get(), CUDA_R_16BF, kN, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
  });
  return 2.0 * kN * kN * kN / t;
}

// One peak: its value, or null with the reason appended to the method (a device that cannot
// run the measurement, out of memory say, still gets an environment of the same shape).
void measure_peak(json& peaks, const char* key, const char* method_key, std::string method,
                  double (*measure)(cudaStream_t), cudaStream_t s) {
  try {
    peaks[key] = measure(s);
  } catch (const DeviceError& e) {
    cudaGetLastError();  // a non-sticky error (an allocation) must not reach the next call
    peaks[key] = nullptr;
    method += "; not measured: " + std::string(e.what());
  }
  peaks[method_key] = method;
}

// Measured once per process and device, when its environment is first built; buffers freed.
json device_peaks(const Device& d) {
  static std::mutex mu;
  static std::map<int, json> done;
  std::lock_guard<std::mutex> lock(mu);
  auto it = done.find(d.ordinal());
  if (it != done.end()) return it->second;
  d.make_current();
  json p = json::object();
  measure_peak(p, "copy_bytes_per_s", "copy_method",
               "cudaMemcpyAsync device to device of 1 GiB, CUDA events, best of 10 after 2 warm-ups; "
               "rate = 2 x 1 GiB (read + write) / time",
               &measure_copy_bytes_per_s, d.stream());
  measure_peak(p, "gemm_bf16_flops_per_s", "gemm_method",
               "cublasGemmEx BF16 in and out, CUBLAS_COMPUTE_32F, M = N = K = 8192, op(A) = A^T, random normal "
               "data, CUDA events, best of 10 after 2 warm-ups; rate = 2 M N K / time",
               &measure_gemm_bf16_flops_per_s, d.stream());
  return done[d.ordinal()] = p;
}

}  // namespace

json GpuBackend::environment() const {
  json e;
  e["backend"] = "cuda";
  e["gpus"] = json::array({device_.info().to_json()});
  e["nccl_version"] = nccl_version_string();
  e["ranks"] = {
      {"world_size", role_.world_size}, {"rank", role_.rank}, {"simulated", role_.simulated}, {"runner", role_.runner}};
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
  e["peaks"] = g_measure_peaks ? device_peaks(device_) : unmeasured_peaks();
  return e;
}

json GpuBackend::protocol() const {
  json p;
  l2_->describe(p);
  p["launch"] = graph_ ? "graph" : "direct";
  p["timer_requested_fallback"] = fallback_reason_.empty() ? json(nullptr) : json(fallback_reason_);
  return p;
}

std::unique_ptr<RowContext> GpuBackend::prepare(const Family& fam, const CaseRow& row, uint64_t seed) {
  if (!fam.make_gpu_context) throw InputError("family '" + fam.name + "' has no GPU context");
  device_.make_current();
  l2_->before_row();
  try {
    return fam.make_gpu_context(row, seed, *this);
  } catch (const std::exception& e) {
    // Rank threads: the peers waiting on this row's pointers stop at once, with this rank's reason.
    if (role_.peers) role_.peers->withdraw(row.id, role_.rank, e.what());
    throw;
  }
}

std::pair<bool, double> GpuBackend::agree(bool ok, double v) {
  if (role_.world_size == 1 || role_.simulated || !role_.comm) return {ok, v};
  device_.make_current();
  double both[2] = {ok ? 0.0 : 1.0, v};
  if (!agree_) agree_ = std::make_unique<DeviceBuffer>(sizeof both);
  const cudaStream_t s = device_.stream();
  KGATE_CUDA(cudaMemcpyAsync(agree_->get(), both, sizeof both, cudaMemcpyHostToDevice, s));
  KGATE_NCCL(
      ncclAllReduce(agree_->get(), agree_->get(), 2, ncclFloat64, ncclMax, static_cast<ncclComm_t>(role_.comm), s));
  KGATE_CUDA(cudaMemcpyAsync(both, agree_->get(), sizeof both, cudaMemcpyDeviceToHost, s));
  KGATE_CUDA(cudaStreamSynchronize(s));
  return {both[0] == 0.0, both[1]};
}

double GpuBackend::agree_max(double v) {
  const auto [all_ok, max] = agree(true, v);
  if (!all_ok) throw RankAbandoned();
  return max;
}

bool GpuBackend::ranks_agree(bool ok) { return agree(ok, 0).first; }

Sample GpuBackend::sample(const Launch& launch) {
  device_.make_current();
  l2_->before_sample(device_.stream());
  agree_max(0);  // ranks of a job: start the sample together
  Measurement m = timer_->measure(launch, device_.stream());
  // A replay's window holds only its cudaGraphLaunch: every record in it must be a graph's node.
  if (graph_ && m.signature && m.graph_records != m.signature->records)
    throw DeviceError("--launch graph: " + std::to_string(m.signature->records - m.graph_records) + " of " +
                      std::to_string(m.signature->records) +
                      " activity records of a replay were not launched by a CUDA graph (CUPTI graphId 0)");
  Sample s;
  s.us = m.us;
  s.signature = std::move(m.signature);
  s.events_us = m.events_us;
  s.sm_clock_mhz = current_sm_clock_mhz(device_.info().pci_bus_id);
  // Only a job's ranks need the intervals (their cross-device union); a single rank's journal
  // stays as it was. Timers other than cupti leave both empty.
  if (role_.world_size > 1 && !role_.simulated) s.intervals_ns = std::move(m.intervals_ns);
  s.activity_us = std::move(m.activity_us);
  return s;
}

// Under --launch graph a capture the call needs is made here, before the clock starts.
Sample GpuRowContext::time_once(const Implementation& impl) {
  if (be_.graph()) current(impl);
  return be_.sample([this, &impl](cudaStream_t s) { launch(impl, s); });
}
double GpuRowContext::warm_call_us(const Implementation& impl) {
  if (be_.graph()) current(impl);
  return be_.warm_call([this, &impl](cudaStream_t s) { launch(impl, s); });
}

// One arm's call captured from a stream and instantiated; each replay is one cudaGraphLaunch.
class ArmGraph {
 public:
  ArmGraph(cudaGraph_t graph, cudaGraphExec_t exec) : graph_(graph), exec_(exec) {}
  ~ArmGraph() {
    KGATE_CUDA_NOEXCEPT(cudaGraphExecDestroy(exec_));
    KGATE_CUDA_NOEXCEPT(cudaGraphDestroy(graph_));
  }
  ArmGraph(const ArmGraph&) = delete;
  ArmGraph& operator=(const ArmGraph&) = delete;
  void replay(cudaStream_t s) const { KGATE_CUDA(cudaGraphLaunch(exec_, s)); }

 private:
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
};

namespace {

std::string cuda_text(const char* call, cudaError_t e) {
  return std::string(call) + " -> " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// `call` captured on `s` (thread-local mode: this thread's host syncs, allocations and other
// capture-unsafe calls fail the capture; other threads, a job's other ranks, are not disturbed),
// instantiated and uploaded; or why it cannot be, in *why. The stream leaves capture either way,
// and the capture's error does not reach the next CUDA call.
std::unique_ptr<ArmGraph> capture_call(const Launch& call, cudaStream_t s, std::string* why) {
  KGATE_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    call(s);
  } catch (const std::exception& e) {
    *why = e.what();
  }
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(s, &graph);
  if (why->empty() && ended != cudaSuccess) *why = cuda_text("cudaStreamEndCapture", ended);
  size_t nodes = 0;
  if (why->empty() && graph) {
    if (const cudaError_t e = cudaGraphGetNodes(graph, nullptr, &nodes); e != cudaSuccess)
      *why = cuda_text("cudaGraphGetNodes", e);
    else if (nodes == 0)
      *why =
          "the call issued no work on the captured stream (work on a stream not joined to it runs outside the graph)";
  }
  cudaGraphExec_t exec = nullptr;
  if (why->empty()) {
    if (const cudaError_t e = cudaGraphInstantiate(&exec, graph, 0); e != cudaSuccess)
      *why = cuda_text("cudaGraphInstantiate", e);
  }
  if (!why->empty()) {
    if (graph) KGATE_CUDA_NOEXCEPT(cudaGraphDestroy(graph));
    cudaGetLastError();  // a failed capture's error is not sticky; the next call must not see it
    return nullptr;
  }
  auto g = std::make_unique<ArmGraph>(graph, exec);
  KGATE_CUDA(cudaGraphUpload(exec, s));  // the first replay does not pay the upload
  return g;
}

}  // namespace

GpuRowContext::GpuRowContext(GpuBackend& be) : be_(be) {}
GpuRowContext::~GpuRowContext() = default;

// From refusal(), capture follows one direct call of the arm, synchronized, as servers warm up
// before they capture: an arm's first call may do one-time work that no capture allows (an
// allocation, a setup upload, a lazily made plan); a call that still syncs or allocates is
// refused. The executor asks before a unit's checks and before its timing, ahead of any call and
// of the check's own preparation (a pristine state, poisoned outputs), so each graph serves one
// phase of one unit: a row's units interleave with other rows', whose calls may change
// process-wide state a capture froze (a workspace an arm grows and frees, a plan it caches).
const GpuRowContext::Captured& GpuRowContext::capture(const Implementation& impl, bool prime) {
  const cudaStream_t s = be_.stream();
  if (prime) {
    launch_call(impl, s);
    KGATE_CUDA(cudaStreamSynchronize(s));
  }
  Captured c;
  c.args = call_args();
  std::string why;
  c.graph = capture_call([this, &impl](cudaStream_t st) { launch_call(impl, st); }, s, &why);
  if (!c.graph) c.refused = "cannot be captured in a CUDA graph: " + why;
  Captured& slot = graphs_[impl.name];
  slot = std::move(c);  // a replaced graph still in flight is freed when it completes
  return slot;
}

// The arm's graph for a call now: the one captured last, unless the args it reads changed since
// (then captured again, with no direct call: the call's inputs may be prepared already).
const GpuRowContext::Captured& GpuRowContext::current(const Implementation& impl) {
  auto it = graphs_.find(impl.name);
  if (it != graphs_.end() && it->second.args == call_args()) return it->second;
  return capture(impl, false);
}

std::string GpuRowContext::refusal(const Implementation& impl) {
  std::string why = arm_refusal(impl);
  if (why.empty() && be_.graph()) why = capture(impl, true).refused;
  return why;
}

void GpuRowContext::launch(const Implementation& impl, cudaStream_t s) {
  if (!be_.graph()) return launch_call(impl, s);
  const Captured& c = current(impl);
  if (!c.graph) throw InputError(impl.name + ": " + c.refused);
  c.graph->replay(s);
}

double GpuBackend::warm_call(const Launch& launch) {
  device_.make_current();
  return agree_max(events_->measure(launch, device_.stream()).us);
}

std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm, int ordinal) {
  return std::make_unique<GpuBackend>(timer, warm, ordinal);
}
std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm) { return make_backend(timer, warm, 0); }
std::unique_ptr<Backend> make_simulated_backend(const std::string& timer, bool warm, int world_size) {
  RankRole role;
  role.world_size = world_size;
  role.simulated = true;
  role.runner = "simulated";
  return std::make_unique<GpuBackend>(timer, warm, 0, std::move(role));
}

GpuBackend::~GpuBackend() {
  if (own_comm_) KGATE_NCCL_NOEXCEPT(ncclCommDestroy(static_cast<ncclComm_t>(own_comm_)));
}

void* GpuBackend::nccl_comm() {
  if (role_.comm) return role_.comm;
  if (role_.world_size != 1 || role_.simulated)
    throw InputError("this run's ranks have no NCCL communicator (" + role_.runner + " runner, world size " +
                     std::to_string(role_.world_size) + ")");
  if (!own_comm_) {
    device_.make_current();
    ncclComm_t c = nullptr;
    const int dev = device_.ordinal();
    KGATE_NCCL(ncclCommInitAll(&c, 1, &dev));
    own_comm_ = c;
  }
  return own_comm_;
}

}  // namespace kgate::gpu
