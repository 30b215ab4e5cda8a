#pragma once
// Timing strategies behind one interface (nvbench's measure_cupti / measure_cold split):
//  - CuptiTimer: CUPTI activity records (kernels, memcpy, memset) of exactly this call, found
//    through an external correlation id pushed around it; the time is the length of the union
//    of their intervals over every device (overlaps once, launch gaps excluded).
//  - EventTimer: CUDA events around the call on its stream (includes launch gaps).
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/gpu/activity_router.hpp"
#include "harness/gpu/device.hpp"
#include "harness/run/campaign.hpp"

namespace kgate::gpu {

struct Measurement {
  double us = 0;         // the timer's value
  double events_us = 0;  // CUDA events around the same call (always recorded)
  double span_us = 0;    // cupti: first start to last end (union + gaps)
  double sum_us = 0;     // cupti: sum of record durations (overlaps counted twice)
  std::optional<Signature> signature;
};

using Launch = std::function<void(cudaStream_t)>;

class Timer {
 public:
  virtual ~Timer() = default;
  virtual std::string name() const = 0;
  // Runs `launch` on `stream` once and measures it. The caller has already flushed L2 and
  // synchronized; the timer synchronizes the whole device after the call.
  virtual Measurement measure(const Launch& launch, cudaStream_t stream) = 0;
};

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
