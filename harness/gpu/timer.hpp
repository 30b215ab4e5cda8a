#pragma once
// A sample is a protocol step and a clock, apart (nvbench's measure_cold and its timers):
//  - L2Protocol: what runs before each sample, outside the measured window: ColdL2 flushes the
//    L2 and synchronizes, WarmL2 only synchronizes. Chosen once per backend.
//  - Timer, the clock, behind one interface:
//    - CuptiTimer: CUPTI activity records (kernels, memcpy, memset) of exactly this call, found
//      through an external correlation id pushed around it; the time is the length of the union
//      of their intervals over every device (overlaps once, launch gaps excluded).
//    - EventTimer: CUDA events around the call on its stream (includes launch gaps).
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/core/jcs.hpp"
#include "harness/core/records.hpp"
#include "harness/gpu/activity_router.hpp"
#include "harness/gpu/device.hpp"

namespace kgate::gpu {

// One call as the clock saw it: everything a sample records travels here, by value.
struct Measurement {
  double us = 0;         // the timer's value
  double events_us = 0;  // CUDA events around the same call (always recorded)
  double span_us = 0;    // cupti: first start to last end (union + gaps)
  double sum_us = 0;     // cupti: sum of record durations (overlaps counted twice)
  std::optional<Signature> signature;
  // cupti: the call's merged [start, end) ns intervals over every device it touched
  // (Sample::intervals_ns) and its time per activity, us (Sample::activity_us); empty otherwise.
  std::vector<std::pair<uint64_t, uint64_t>> intervals_ns;
  std::map<std::string, double> activity_us;
  int64_t graph_records = 0;  // cupti: records launched by a CUDA graph
};

using Launch = std::function<void(cudaStream_t)>;

class Timer {
 public:
  virtual ~Timer() = default;
  virtual std::string name() const = 0;
  // Runs `launch` on `stream` once and measures it. The L2 protocol has already run
  // (L2Protocol::before_sample); the timer synchronizes the whole device after the call.
  virtual Measurement measure(const Launch& launch, cudaStream_t stream) = 0;
};

// The L2 state each sample starts from, and the steps that make it, outside the measured window.
class L2Protocol {
 public:
  virtual ~L2Protocol() = default;
  // Before a row's first call: persisting (evict_last) lines back to normal, in both protocols,
  // so a row never inherits lines the previous row's arms pinned.
  void before_row();
  // Before every sample; returns with the device idle.
  virtual void before_sample(cudaStream_t stream) = 0;
  // The receipt's protocol fields this choice decides: cold_l2, flush_bytes, flush, persisting_l2.
  virtual void describe(json& protocol) const = 0;
};

// Cold: the flusher's persisting-line reset and 2x-L2 write, then a device synchronize.
class ColdL2 final : public L2Protocol {
 public:
  explicit ColdL2(L2Flusher& flusher) : flusher_(flusher) {}
  void before_sample(cudaStream_t stream) override;
  void describe(json& protocol) const override;

 private:
  L2Flusher& flusher_;
};

// Warm (--warm): a device synchronize only; a sample sees what the previous call left in L2.
class WarmL2 final : public L2Protocol {
 public:
  void before_sample(cudaStream_t stream) override;
  void describe(json& protocol) const override;
};

// WarmL2 when `warm`, else ColdL2 over `flusher` (which must outlive it).
std::unique_ptr<L2Protocol> make_l2_protocol(bool warm, L2Flusher& flusher);

// One device's attachment to the process-wide CUPTI activity stream. CUPTI's buffers and
// callbacks are per process: the first subscription registers the callbacks and enables the
// activity kinds, the last one disables them. Its device is the one its timer's samples are
// filed under in the process-wide ActivityRouter.
class CuptiSubscription {
 public:
  // nullptr and *why when CUPTI cannot be used (another subscriber holds it).
  static std::shared_ptr<CuptiSubscription> open(int ordinal, std::string* why);
  ~CuptiSubscription();
  CuptiSubscription(const CuptiSubscription&) = delete;
  CuptiSubscription& operator=(const CuptiSubscription&) = delete;
  int ordinal() const { return ordinal_; }

 private:
  explicit CuptiSubscription(int ordinal) : ordinal_(ordinal) {}
  int ordinal_;
};

// The router every CUPTI record of this process goes through.
ActivityRouter& cupti_router();

// Measures on `device` (its thread makes it current). Returns nullptr and sets *why when CUPTI
// cannot be used (e.g. another subscriber holds it: compute-sanitizer, ncu, nsys).
std::unique_ptr<Timer> make_cupti_timer(Device& device, std::string* why);
// The same on the calling thread's current device, with a subscription of its own.
std::unique_ptr<Timer> make_cupti_timer(std::string* why);
std::unique_ptr<Timer> make_event_timer();

// Keeps records whose correlation id maps to `external_id`; computes union, span, sum, signature
// (the record filtering the router does, on given vectors: for tests).
Measurement summarize_records(const std::vector<ActivityRecord>& records,
                              const std::vector<std::pair<uint32_t, uint64_t>>& correlation_to_external,
                              uint64_t external_id);

}  // namespace kgate::gpu
