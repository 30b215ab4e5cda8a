#include "harness/gpu/device.hpp"

#include <dlfcn.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "harness/gpu/timer.hpp"

namespace kgate::gpu {

DeviceBuffer::DeviceBuffer(size_t bytes) : n_(bytes) {
  if (bytes) KGATE_CUDA(cudaMalloc(&p_, bytes));
}
DeviceBuffer::~DeviceBuffer() {
  if (p_) KGATE_CUDA_NOEXCEPT(cudaFree(p_));
}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    if (p_) KGATE_CUDA_NOEXCEPT(cudaFree(p_));
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}
void DeviceBuffer::upload(const void* host, size_t bytes, size_t offset) {
  if (offset + bytes > n_) throw DeviceError("DeviceBuffer::upload out of bounds");
  // From pageable memory cudaMemcpy may return once the bytes are staged, before the DMA lands, and
  // the backend's streams are non-blocking: they would not wait for it. Synchronizing the legacy
  // stream the copy went to makes the contents visible to every stream when upload returns.
  KGATE_CUDA(cudaMemcpyAsync(static_cast<char*>(p_) + offset, host, bytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
  KGATE_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
}
void DeviceBuffer::download(void* host, size_t bytes, size_t offset) const {
  if (offset + bytes > n_) throw DeviceError("DeviceBuffer::download out of bounds");
  KGATE_CUDA(cudaMemcpy(host, static_cast<const char*>(p_) + offset, bytes, cudaMemcpyDeviceToHost));
}

Stream::Stream() { KGATE_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
Stream::~Stream() {
  if (s_) KGATE_CUDA_NOEXCEPT(cudaStreamDestroy(s_));
}
Event::Event() { KGATE_CUDA(cudaEventCreate(&e_)); }
Event::~Event() {
  if (e_) KGATE_CUDA_NOEXCEPT(cudaEventDestroy(e_));
}

L2Flusher::L2Flusher(int device) {
  int l2 = 0;
  KGATE_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  buf_ = DeviceBuffer(static_cast<size_t>(std::max(l2, 1 << 20)) * 2);
}
void L2Flusher::flush(cudaStream_t s) {
  KGATE_CUDA(cudaStreamSynchronize(s));  // the reset is not stream-ordered: nothing may still run
  KGATE_CUDA(cudaCtxResetPersistingL2Cache());
  KGATE_CUDA(cudaMemsetAsync(buf_.get(), static_cast<int>(++value_ & 0xff), buf_.bytes(), s));
}

json DeviceInfo::to_json() const {
  return json{{"ordinal", ordinal},
              {"name", name},
              {"uuid", uuid},
              {"pci_bus_id", pci_bus_id},
              {"compute_capability", std::to_string(cc_major) + "." + std::to_string(cc_minor)},
              {"sm_count", sm_count},
              {"l2_bytes", l2_bytes},
              {"global_mem_bytes", global_mem_bytes},
              {"driver_version", driver_version},
              {"runtime_version", runtime_version},
              {"max_sm_clock_mhz", max_sm_clock_mhz},
              {"sm_clock_mhz_at_start", current_sm_clock_mhz(pci_bus_id)},
              {"mem_clock_mhz_at_start", current_mem_clock_mhz(pci_bus_id)}};
}

DeviceInfo query_device(int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  cudaDeviceProp p{};
  KGATE_CUDA(cudaGetDeviceProperties(&p, ordinal));
  d.name = p.name;
  char uuid[64];
  const unsigned char* u = reinterpret_cast<const unsigned char*>(p.uuid.bytes);
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
                u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
  d.uuid = uuid;
  char bus[32] = {0};
  KGATE_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal));
  d.pci_bus_id = bus;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = static_cast<size_t>(p.l2CacheSize);
  d.global_mem_bytes = p.totalGlobalMem;
  KGATE_CUDA(cudaDriverGetVersion(&d.driver_version));
  KGATE_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  int khz = 0;
  KGATE_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, ordinal));
  d.max_sm_clock_mhz = khz / 1000;
  return d;
}

std::string nccl_version_string() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

namespace {
// NVML, loaded at run time so kgate needs no link-time dependency on the driver's library.
struct Nvml {
  using Init = int (*)();
  using ByBus = int (*)(const char*, void**);
  using Clock = int (*)(void*, int, unsigned*);
  ByBus by_bus = nullptr;
  Clock clock = nullptr;
  bool ok = false;
  Nvml() {
    void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    auto init = reinterpret_cast<Init>(dlsym(h, "nvmlInit_v2"));
    by_bus = reinterpret_cast<ByBus>(dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<Clock>(dlsym(h, "nvmlDeviceGetClockInfo"));
    ok = init && by_bus && clock && init() == 0;
  }
  unsigned get(const std::string& bus, int which) {
    void* dev = nullptr;
    unsigned mhz = 0;
    if (!ok || by_bus(bus.c_str(), &dev) != 0 || clock(dev, which, &mhz) != 0) return 0;
    return mhz;
  }
};
Nvml& nvml() {
  static Nvml n;
  return n;
}
}  // namespace

namespace {
// Selects the device before any member is built: the stream and the flush buffer belong to it.
int select_device(int ordinal) {
  KGATE_CUDA(cudaSetDevice(ordinal));
  return ordinal;
}
}  // namespace

Device::Device(int ordinal) : ordinal_(select_device(ordinal)), info_(query_device(ordinal)), flusher_(ordinal) {}
Device::~Device() = default;

void Device::make_current() const { KGATE_CUDA(cudaSetDevice(ordinal_)); }

std::shared_ptr<CuptiSubscription> Device::cupti(std::string* why) {
  if (!cupti_) cupti_ = CuptiSubscription::open(ordinal_, why);
  return cupti_;
}

unsigned current_sm_clock_mhz(const std::string& bus) { return nvml().get(bus, 1 /* NVML_CLOCK_SM */); }
unsigned current_mem_clock_mhz(const std::string& bus) { return nvml().get(bus, 2 /* NVML_CLOCK_MEM */); }

}  // namespace kgate::gpu
