#pragma once
// Routes CUPTI activity records to the measurement they belong to. Plain C++ (no CUDA, no
// CUPTI): the CUPTI buffer callback parses records and hands them here, the timer asks for its
// own; unit tests drive it directly with simulated devices and threads.
//
// CUPTI's activity buffers are per process, so records of every device and every measuring
// thread arrive through one callback, in any order: a kernel record may come before or after
// the external-correlation record that ties its correlation id to a measurement's external id,
// in the same or another buffer. The router keeps
//  - per external id: the records matched to it so far (all devices: a sample's time is the
//    union over every device it touched) and the correlation ids that map to it;
//  - records whose correlation id is not yet mapped, pending, bounded: pending records older
//    than `max_age` issued external ids (or beyond `max_pending` correlation ids) are dropped
//    and counted as orphans; so is an external id nobody takes within `max_age` ids;
//  - per device: the records CUPTI reported dropped (contexts map to devices; drops CUPTI
//    reports for no known context count against every device).
// A measurement begins (a fresh external id, unique across threads), and later takes exactly
// its own records; nothing of another measurement is touched.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "harness/core/records.hpp"

namespace kgate::gpu {

struct ActivityRecord {
  uint64_t start, end;  // ns, one clock for every device
  uint32_t device, correlation;
  std::string name;
  bool kernel;
  // CUPTI's graphId: nonzero for work a CUDA graph launched (--launch graph). CUPTI gives a
  // graph's nodes the correlation id of the cudaGraphLaunch that ran them, so a replay's records
  // reach its sample through the external id pushed around that launch, as a direct call's do.
  uint32_t graph_id = 0;
};

// The sample's time from its records: union of the intervals over all devices (overlaps once,
// gaps excluded), span (first start to last end), sum of durations, and the A/L/K signature.
struct RecordSummary {
  double union_us = 0, span_us = 0, sum_us = 0;
  Signature signature;
  // The merged intervals (ns on the one clock, sorted, disjoint): the sample's activity over every
  // device it touched, for the union of several ranks' samples (records.hpp, Sample::intervals_ns).
  std::vector<std::pair<uint64_t, uint64_t>> intervals_ns;
  // Time per activity, us: each kernel name's (and "memcpy", "memset") summed durations,
  // end - start, overlaps not merged (Sample::activity_us).
  std::map<std::string, double> activity_us;
  int64_t graph_records = 0;  // records with a graph_id: launched by a CUDA graph
};
RecordSummary summarize(const std::vector<ActivityRecord>& records);

struct RouterStats {
  size_t pending_records = 0;        // records whose correlation is not mapped yet
  size_t open_external_ids = 0;      // not in flight, holding records or correlations
  size_t in_flight = 0;              // begun, not taken
  uint64_t orphan_records = 0;       // dropped unmatched (aged out, or late for a taken id)
  uint64_t orphan_external_ids = 0;  // external ids aged out without being taken
};

class ActivityRouter {
 public:
  static constexpr uint32_t kUnknownDevice = UINT32_MAX;
  explicit ActivityRouter(uint64_t max_age = 1024, size_t max_pending = size_t{1} << 16);

  // A new measurement on `device`: its external id (unique across threads) and a snapshot of
  // the dropped-record counters, so take() reports drops that happened during it.
  uint64_t begin(uint32_t device);
  struct Taken {
    std::vector<ActivityRecord> records;  // every record mapped to the id, any device
    uint64_t dropped = 0;                 // records CUPTI dropped since begin() on the measuring device, on a
                                          // device the records touch, or for no known context
  };
  // Extracts and erases the records of `ext` (begun on `device`); waits for deliveries in
  // progress (a buffer being parsed by another thread's flush) to land first.
  Taken take(uint32_t device, uint64_t ext);
  // A measurement that failed before take(): forget it; its late records become orphans.
  void abandon(uint64_t ext);

  // From the buffer callback. A delivery brackets the records of one buffer, so that take()
  // never runs while a buffer that may hold its records is half parsed.
  void begin_delivery();
  void end_delivery();
  void add_record(ActivityRecord r);
  void add_correlation(uint32_t correlation, uint64_t ext);
  void map_context(uintptr_t context, uint32_t device);
  void add_dropped(uintptr_t context, uint64_t n);

  RouterStats stats() const;

 private:
  struct Open {
    std::vector<ActivityRecord> records;
    std::vector<uint32_t> correlations;
  };
  struct InFlight {
    uint32_t device;
    std::map<uint32_t, uint64_t> dropped_at_begin;
  };
  void age_locked();

  const uint64_t max_age_;
  const size_t max_pending_;
  mutable std::mutex mu_;
  std::condition_variable delivered_;
  int deliveries_ = 0;
  uint64_t next_ext_ = 0;  // last id issued: the clock that ages pending entries
  std::unordered_map<uint32_t, uint64_t> corr_to_ext_;
  std::map<uint64_t, Open> open_;
  std::map<uint64_t, InFlight> in_flight_;
  struct Pending {
    uint64_t stamp;  // clock when the first record of this correlation arrived
    std::vector<ActivityRecord> records;
  };
  // Unmatched records by correlation id; `arrivals_` is their FIFO (stamp, correlation id).
  std::unordered_map<uint32_t, Pending> pending_;
  std::deque<std::pair<uint64_t, uint32_t>> arrivals_;
  size_t pending_count_ = 0;
  std::unordered_map<uintptr_t, uint32_t> ctx_device_;
  std::map<uint32_t, uint64_t> dropped_;  // cumulative, by device (kUnknownDevice: no context)
  uint64_t orphan_records_ = 0, orphan_ids_ = 0;
};

}  // namespace kgate::gpu
