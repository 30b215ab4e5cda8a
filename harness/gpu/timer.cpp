#include "harness/gpu/timer.hpp"

#include <cupti.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

namespace kgate::gpu {

Measurement summarize_records(const std::vector<ActivityRecord>& records,
                              const std::vector<std::pair<uint32_t, uint64_t>>& corr_to_ext, uint64_t ext) {
  std::set<uint32_t> mine;
  for (const auto& [c, e] : corr_to_ext)
    if (e == ext) mine.insert(c);
  std::vector<Interval> iv;
  std::set<std::string> names;
  Signature sig;
  double sum = 0;
  for (const auto& r : records) {
    if (!mine.count(r.correlation)) continue;
    iv.push_back({r.start, r.end, static_cast<int>(r.device)});
    names.insert(r.name);
    ++sig.records;
    sig.launches += r.kernel;
    sum += static_cast<double>(r.end - r.start);
  }
  Measurement m;
  m.span_us = static_cast<double>(span_length(iv)) / 1000.0;
  m.us = static_cast<double>(union_length(iv)) / 1000.0;
  m.sum_us = sum / 1000.0;
  sig.kernel_names.assign(names.begin(), names.end());
  m.signature = sig;
  return m;
}

namespace {

#define KGATE_CUPTI(call)                                                                           \
  do {                                                                                              \
    CUptiResult kgate_r_ = (call);                                                                  \
    if (kgate_r_ != CUPTI_SUCCESS) {                                                                \
      const char* s = nullptr;                                                                      \
      cuptiGetResultString(kgate_r_, &s);                                                           \
      ::kgate::gpu::throw_device_error("CUPTI", __FILE__, __LINE__, #call, std::to_string(kgate_r_), \
                                       s ? s : "?");                                                \
    }                                                                                               \
  } while (0)

// CUPTI delivers records through process-wide callbacks, so the collected state is global.
struct Collected {
  std::mutex mu;
  std::vector<ActivityRecord> records;
  std::vector<std::pair<uint32_t, uint64_t>> corr;
  size_t dropped = 0;
};
Collected& collected() {
  static Collected c;
  return c;
}

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  Collected& c = collected();
  std::lock_guard<std::mutex> lock(c.mu);
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
    switch (rec->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
        c.records.push_back({uint64_t{k->start}, uint64_t{k->end}, uint32_t{k->deviceId}, uint32_t{k->correlationId}, k->name ? k->name : "?", true});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(rec);
        c.records.push_back({uint64_t{m->start}, uint64_t{m->end}, uint32_t{m->deviceId}, uint32_t{m->correlationId}, "memcpy", false});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(rec);
        c.records.push_back({uint64_t{m->start}, uint64_t{m->end}, uint32_t{m->deviceId}, uint32_t{m->correlationId}, "memset", false});
        break;
      }
      case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        auto* e = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(rec);
        if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) c.corr.emplace_back(uint32_t{e->correlationId}, uint64_t{e->externalId});
        break;
      }
      default: break;
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS) c.dropped += dropped;
  std::free(buffer);
}

class EventTimer final : public Timer {
 public:
  std::string name() const override { return "events"; }
  Measurement measure(const Launch& launch, cudaStream_t s) override {
    KGATE_CUDA(cudaEventRecord(a_.get(), s));
    launch(s);
    KGATE_CUDA(cudaEventRecord(b_.get(), s));
    KGATE_CUDA(cudaDeviceSynchronize());
    float ms = 0;
    KGATE_CUDA(cudaEventElapsedTime(&ms, a_.get(), b_.get()));
    Measurement m;
    m.us = m.events_us = ms * 1000.0;
    return m;
  }

 private:
  Event a_, b_;
};

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                                     CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

class CuptiTimer final : public Timer {
 public:
  CuptiTimer() = default;
  ~CuptiTimer() override {
    cuptiActivityFlushAll(0);
    for (auto k : kKinds) cuptiActivityDisable(k);
  }
  // Enables the activity kinds; returns an error text instead of throwing when CUPTI is held.
  std::string start() {
    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) return describe("cuptiActivityRegisterCallbacks", r);
    for (auto k : kKinds) {
      r = cuptiActivityEnable(k);
      if (r != CUPTI_SUCCESS) {
        for (auto j : kKinds) cuptiActivityDisable(j);
        return describe("cuptiActivityEnable", r);
      }
    }
    return "";
  }
  std::string name() const override { return "cupti"; }
  Measurement measure(const Launch& launch, cudaStream_t s) override {
    uint64_t id = ++next_id_;
    KGATE_CUDA(cudaEventRecord(a_.get(), s));
    KGATE_CUPTI(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id));
    try {
      launch(s);
    } catch (...) {
      uint64_t x;
      cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &x);
      throw;
    }
    uint64_t popped = 0;
    KGATE_CUPTI(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped));
    KGATE_CUDA(cudaEventRecord(b_.get(), s));
    KGATE_CUDA(cudaDeviceSynchronize());
    KGATE_CUPTI(cuptiActivityFlushAll(1));
    Collected& c = collected();
    Measurement m;
    {
      std::lock_guard<std::mutex> lock(c.mu);
      if (c.dropped) {
        size_t d = c.dropped;
        c.dropped = 0;
        c.records.clear();
        c.corr.clear();
        throw DeviceError("CUPTI dropped " + std::to_string(d) + " activity records: sample invalid");
      }
      m = summarize_records(c.records, c.corr, id);
      c.records.clear();
      c.corr.clear();
    }
    if (m.signature->records == 0)
      throw DeviceError("CUPTI saw no kernel, memcpy or memset record for this call (nothing launched?)");
    float ms = 0;
    KGATE_CUDA(cudaEventElapsedTime(&ms, a_.get(), b_.get()));
    m.events_us = ms * 1000.0;
    return m;
  }

 private:
  static std::string describe(const char* what, CUptiResult r) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    return std::string(what) + " -> " + (s ? s : std::to_string(r));
  }
  uint64_t next_id_ = 0;
  Event a_, b_;
};

}  // namespace

std::unique_ptr<Timer> make_cupti_timer(std::string* why) {
  auto t = std::make_unique<CuptiTimer>();
  std::string err = t->start();
  if (!err.empty()) {
    if (why) *why = err;
    return nullptr;
  }
  return t;
}

std::unique_ptr<Timer> make_event_timer() { return std::make_unique<EventTimer>(); }

}  // namespace kgate::gpu
