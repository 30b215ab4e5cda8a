#include "harness/gpu/timer.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <set>

namespace kgate::gpu {

namespace {

Measurement to_measurement(RecordSummary s) {
  Measurement m;
  m.us = s.union_us;
  m.span_us = s.span_us;
  m.sum_us = s.sum_us;
  m.signature = std::move(s.signature);
  m.intervals_ns = std::move(s.intervals_ns);
  m.activity_us = std::move(s.activity_us);
  m.graph_records = s.graph_records;
  return m;
}

}  // namespace

Measurement summarize_records(const std::vector<ActivityRecord>& records,
                              const std::vector<std::pair<uint32_t, uint64_t>>& corr_to_ext, uint64_t ext) {
  std::set<uint32_t> mine;
  for (const auto& [c, e] : corr_to_ext)
    if (e == ext) mine.insert(c);
  std::vector<ActivityRecord> kept;
  for (const auto& r : records)
    if (mine.count(r.correlation)) kept.push_back(r);
  return to_measurement(summarize(kept));
}

ActivityRouter& cupti_router() {
  static ActivityRouter r;
  return r;
}

namespace {

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

// Runs on whichever thread CUPTI delivers on (a flushing measurement's, or its own worker).
// Must not throw into CUPTI: a failure to file a record is a lost record, reported as dropped.
void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  ActivityRouter& router = cupti_router();
  router.begin_delivery();
  try {
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
      switch (rec->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
          router.add_record({uint64_t{k->start}, uint64_t{k->end}, uint32_t{k->deviceId}, uint32_t{k->correlationId},
                             k->name ? k->name : "?", true, uint32_t{k->graphId}});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          auto* m = reinterpret_cast<CUpti_ActivityMemcpy6*>(rec);
          router.add_record({uint64_t{m->start}, uint64_t{m->end}, uint32_t{m->deviceId}, uint32_t{m->correlationId},
                             "memcpy", false, uint32_t{m->graphId}});
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          auto* m = reinterpret_cast<CUpti_ActivityMemset4*>(rec);
          router.add_record({uint64_t{m->start}, uint64_t{m->end}, uint32_t{m->deviceId}, uint32_t{m->correlationId},
                             "memset", false, uint32_t{m->graphId}});
          break;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
          auto* e = reinterpret_cast<CUpti_ActivityExternalCorrelation*>(rec);
          if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
            router.add_correlation(uint32_t{e->correlationId}, uint64_t{e->externalId});
          break;
        }
        default:
          break;
      }
    }
    // Drops are reported per context (none: CUPTI's global buffers, charged to every device).
    // The context's device comes from CUPTI, not the driver API: kgate must start without
    // libcuda (CPU backend on a machine with no driver).
    uint32_t device = 0;
    if (ctx && cuptiGetDeviceId(ctx, &device) == CUPTI_SUCCESS)
      router.map_context(reinterpret_cast<uintptr_t>(ctx), device);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == CUPTI_SUCCESS)
      router.add_dropped(reinterpret_cast<uintptr_t>(ctx), dropped);
  } catch (...) {
    router.add_dropped(0, 1);  // charged to every device: the samples in flight are invalid
  }
  router.end_delivery();
  std::free(buffer);
}

const CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,    CUPTI_ACTIVITY_KIND_MEMCPY,  CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER};

// The process-wide enable count behind CuptiSubscription.
struct Enabled {
  std::mutex mu;
  int subscribers = 0;
};
Enabled& enabled() {
  static Enabled e;
  return e;
}

std::string describe(const char* what, CUptiResult r) { return std::string(what) + " -> " + cupti_result_name(r); }

}  // namespace

std::shared_ptr<CuptiSubscription> CuptiSubscription::open(int ordinal, std::string* why) {
  auto fail = [why](std::string text) {
    if (why) *why = std::move(text);
    return std::shared_ptr<CuptiSubscription>();
  };
  {
    Enabled& e = enabled();
    std::lock_guard<std::mutex> lock(e.mu);
    if (e.subscribers == 0) {
      CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
      if (r != CUPTI_SUCCESS) return fail(describe("cuptiActivityRegisterCallbacks", r));
      for (auto k : kKinds) {
        r = cuptiActivityEnable(k);
        if (r != CUPTI_SUCCESS) {
          for (auto j : kKinds) cuptiActivityDisable(j);
          return fail(describe("cuptiActivityEnable", r));
        }
      }
    }
    ++e.subscribers;
  }
  return std::shared_ptr<CuptiSubscription>(new CuptiSubscription(ordinal));
}

CuptiSubscription::~CuptiSubscription() {
  Enabled& e = enabled();
  std::lock_guard<std::mutex> lock(e.mu);
  if (--e.subscribers > 0) return;
  KGATE_CUPTI_NOEXCEPT(cuptiActivityFlushAll(0));
  for (auto k : kKinds) cuptiActivityDisable(k);
}

namespace {

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

class CuptiTimer final : public Timer {
 public:
  explicit CuptiTimer(std::shared_ptr<CuptiSubscription> sub) : sub_(std::move(sub)) {}
  std::string name() const override { return "cupti"; }
  Measurement measure(const Launch& launch, cudaStream_t s) override {
    ActivityRouter& router = cupti_router();
    const auto device = static_cast<uint32_t>(sub_->ordinal());
    const uint64_t id = router.begin(device);
    try {
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
      // Process-wide and safe from several threads: it may deliver other measurements' records
      // too; the router files them under their own ids.
      KGATE_CUPTI(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    } catch (...) {
      router.abandon(id);
      throw;
    }
    ActivityRouter::Taken taken = router.take(device, id);
    if (taken.dropped)
      throw DeviceError("CUPTI dropped " + std::to_string(taken.dropped) + " activity records: sample invalid");
    Measurement m = to_measurement(summarize(taken.records));
    if (m.signature->records == 0)
      throw DeviceError("CUPTI saw no kernel, memcpy or memset record for this call (nothing launched?)");
    float ms = 0;
    KGATE_CUDA(cudaEventElapsedTime(&ms, a_.get(), b_.get()));
    m.events_us = ms * 1000.0;
    return m;
  }

 private:
  std::shared_ptr<CuptiSubscription> sub_;
  Event a_, b_;
};

}  // namespace

std::unique_ptr<Timer> make_cupti_timer(Device& device, std::string* why) {
  auto sub = device.cupti(why);
  if (!sub) return nullptr;
  return std::make_unique<CuptiTimer>(std::move(sub));
}

std::unique_ptr<Timer> make_cupti_timer(std::string* why) {
  int current = 0;
  KGATE_CUDA(cudaGetDevice(&current));
  auto sub = CuptiSubscription::open(current, why);
  if (!sub) return nullptr;
  return std::make_unique<CuptiTimer>(std::move(sub));
}

std::unique_ptr<Timer> make_event_timer() { return std::make_unique<EventTimer>(); }

void L2Protocol::before_row() { KGATE_CUDA(cudaCtxResetPersistingL2Cache()); }

void ColdL2::before_sample(cudaStream_t stream) {
  flusher_.flush(stream);
  KGATE_CUDA(cudaDeviceSynchronize());
}

void ColdL2::describe(json& p) const {
  p["cold_l2"] = true;
  p["flush_bytes"] = flusher_.bytes();
  p["flush"] =
      "persisting (evict_last) lines reset, then cudaMemsetAsync over 2x L2, before every sample, outside the "
      "measured window";
  p["persisting_l2"] = "reset before every row and every sample";
}

void WarmL2::before_sample(cudaStream_t) { KGATE_CUDA(cudaDeviceSynchronize()); }

void WarmL2::describe(json& p) const {
  p["cold_l2"] = false;
  p["flush_bytes"] = size_t{0};
  p["flush"] = "none (--warm)";
  p["persisting_l2"] = "reset before every row";
}

std::unique_ptr<L2Protocol> make_l2_protocol(bool warm, L2Flusher& flusher) {
  if (warm) return std::make_unique<WarmL2>();
  return std::make_unique<ColdL2>(flusher);
}

}  // namespace kgate::gpu
