#pragma once
// RAII device resources, device identity, the L2 flush, and Device: one GPU's state.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"
#include "harness/gpu/check.hpp"

namespace kgate::gpu {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  void* get() const { return p_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  size_t bytes() const { return n_; }
  void upload(const void* host, size_t bytes, size_t offset = 0);
  void download(void* host, size_t bytes, size_t offset = 0) const;

 private:
  void* p_ = nullptr;
  size_t n_ = 0;
};

class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event();
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// Writes >= 2x the L2 size before every sample, outside the measured window; allocated once.
// First it resets persisting lines to normal: lines an arm left at L2::evict_last priority (an
// evict_last bulk prefetch, say) survive a plain memset flush (measured on the H200: 384 cycles
// per load after the flush, an L2 hit, against 690 from DRAM) and would give the next sample
// warm inputs.
class L2Flusher {
 public:
  explicit L2Flusher(int device);
  void flush(cudaStream_t s);
  size_t bytes() const { return buf_.bytes(); }

 private:
  DeviceBuffer buf_;
  unsigned value_ = 0;
};

struct DeviceInfo {
  int ordinal = 0;
  std::string name, uuid, pci_bus_id;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  size_t l2_bytes = 0, global_mem_bytes = 0;
  int driver_version = 0, runtime_version = 0;
  int max_sm_clock_mhz = 0;
  json to_json() const;
};
DeviceInfo query_device(int ordinal);
std::string nccl_version_string();
// Current SM clock through NVML (loaded at run time); 0 when NVML is not available.
unsigned current_sm_clock_mhz(const std::string& pci_bus_id);
unsigned current_mem_clock_mhz(const std::string& pci_bus_id);

class CuptiSubscription;  // timer.hpp

// One GPU as a measuring thread sees it: its identity, its stream, its cold-L2 flusher and its
// attachment to the process-wide CUPTI activity stream. The constructor makes the device
// current on the calling thread; a thread that measures on it calls make_current() first (the
// current device is per thread, and a rank thread owns one Device).
class Device {
 public:
  explicit Device(int ordinal);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  int ordinal() const { return ordinal_; }
  const DeviceInfo& info() const { return info_; }
  cudaStream_t stream() const { return stream_.get(); }
  L2Flusher& flusher() { return flusher_; }
  const L2Flusher& flusher() const { return flusher_; }
  void make_current() const;
  // This device's CUPTI subscription, opened on first use; nullptr and *why when CUPTI cannot
  // be used (another subscriber holds it: compute-sanitizer, ncu, nsys).
  std::shared_ptr<CuptiSubscription> cupti(std::string* why);

 private:
  int ordinal_;
  DeviceInfo info_;
  Stream stream_;
  L2Flusher flusher_;
  std::shared_ptr<CuptiSubscription> cupti_;
};

}  // namespace kgate::gpu
