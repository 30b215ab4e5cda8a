// The CUPTI record router (harness/gpu/activity_router.hpp), driven with simulated devices and
// threads: no GPU, no CUPTI.
#include "harness/gpu/activity_router.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <variant>

using kgate::gpu::ActivityRecord;
using kgate::gpu::ActivityRouter;

namespace {

ActivityRecord rec(uint32_t device, uint32_t corr, uint64_t start = 100, uint64_t end = 200, const char* name = "k") {
  return {start, end, device, corr, name, true};
}

std::set<uint32_t> correlations(const std::vector<ActivityRecord>& rs) {
  std::set<uint32_t> s;
  for (const auto& r : rs) s.insert(r.correlation);
  return s;
}

}  // namespace

TEST(ActivityRouter, SummarizeIsTheUnionOverDevices) {
  std::vector<ActivityRecord> recs = {{300, 400, 0, 2, "k_a", true},
                                      {350, 500, 1, 3, "k_b", true},       // another device, overlapping
                                      {600, 650, 0, 4, "memcpy", false}};  // after a gap
  auto s = kgate::gpu::summarize(recs);
  EXPECT_DOUBLE_EQ(s.union_us, 0.25);  // [300,500] + [600,650]
  EXPECT_DOUBLE_EQ(s.span_us, 0.35);
  EXPECT_DOUBLE_EQ(s.sum_us, 0.30);
  EXPECT_EQ(s.signature.records, 3);
  EXPECT_EQ(s.signature.launches, 2);
  EXPECT_EQ(s.signature.kernel_names, (std::vector<std::string>{"k_a", "k_b", "memcpy"}));
  EXPECT_EQ(kgate::gpu::summarize({}).signature.records, 0);
}

// --launch graph: a replay's records are filed like a direct call's (one correlation id, the
// cudaGraphLaunch's); the summary counts those a graph launched (CUPTI graphId != 0), which the
// GPU backend requires to be all of a graph-mode sample's.
TEST(ActivityRouter, SummarizeCountsTheRecordsAGraphLaunched) {
  std::vector<ActivityRecord> recs = {
      {100, 200, 0, 7, "k_a", true, 3}, {200, 300, 0, 7, "memset", false, 3}, {300, 400, 0, 7, "k_b", true, 0}};
  EXPECT_EQ(kgate::gpu::summarize(recs).graph_records, 2);
  recs.pop_back();
  const auto s = kgate::gpu::summarize(recs);
  EXPECT_EQ(s.graph_records, s.signature.records);
  ActivityRouter r;
  const uint64_t ext = r.begin(0);
  r.add_correlation(7, ext);
  for (const auto& x : recs) r.add_record(x);
  const auto taken = r.take(0, ext).records;
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].graph_id, 3u);
  EXPECT_EQ(kgate::gpu::summarize(taken).graph_records, 2);
}

TEST(ActivityRouter, RecordsBeforeAndAfterTheirCorrelation) {
  ActivityRouter r;
  uint64_t id = r.begin(0);
  r.add_record(rec(0, 10));  // its correlation comes in a later buffer
  r.add_correlation(10, id);
  r.add_correlation(11, id);
  r.add_record(rec(0, 11));   // correlation already known
  r.add_correlation(12, id);  // an API call with no activity (cudaGetLastError, say)
  auto t = r.take(0, id);
  EXPECT_EQ(correlations(t.records), (std::set<uint32_t>{10, 11}));
  EXPECT_EQ(t.dropped, 0u);
  auto st = r.stats();
  EXPECT_EQ(st.pending_records, 0u);
  EXPECT_EQ(st.open_external_ids, 0u);
  EXPECT_EQ(st.in_flight, 0u);
}

// A sample's merged intervals (a rank's sample, for the cross-device union) come with its
// summary: overlapping records of two devices merge, a gap stays.
TEST(ActivityRouter, SummarizeMergesTheIntervalsOverDevices) {
  ActivityRouter r;
  uint64_t id = r.begin(0);
  r.add_correlation(1, id);
  r.add_record(rec(0, 1, 300, 400));
  r.add_record(rec(1, 1, 350, 500));
  r.add_record(rec(0, 1, 600, 650));
  using P = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(kgate::gpu::summarize(r.take(0, id).records).intervals_ns, (P{{300, 500}, {600, 650}}));
  EXPECT_TRUE(kgate::gpu::summarize({}).intervals_ns.empty());
}

// The call's time per activity: each name's durations summed (a kernel launched twice counts
// twice; overlaps are not merged); a record whose end precedes its start adds nothing.
TEST(ActivityRouter, SummarizeGivesTheTimePerActivity) {
  ActivityRouter r;
  uint64_t id = r.begin(0);
  r.add_correlation(1, id);
  r.add_record(rec(0, 1, 1000, 3000, "gemm"));
  r.add_record(rec(0, 1, 2500, 4000, "gemm"));  // a second launch, overlapping the first
  r.add_record({4000, 4500, 0, 1, "memcpy", false});
  r.add_record({5000, 4900, 0, 1, "memset", false});
  using M = std::map<std::string, double>;
  EXPECT_EQ(kgate::gpu::summarize(r.take(0, id).records).activity_us,
            (M{{"gemm", 3.5}, {"memcpy", 0.5}, {"memset", 0}}));
}

// The old timer kept one record vector that every measurement cleared: device 0's measurement,
// whose flush also delivered device 1's records, erased them and device 1 saw nothing.
TEST(ActivityRouter, OneDevicesTakeLeavesAnotherDevicesRecords) {
  ActivityRouter r;
  uint64_t a = r.begin(0), b = r.begin(1);
  r.add_correlation(1, a);
  r.add_correlation(2, b);
  r.add_record(rec(1, 2, 1000, 1300));  // device 1's kernel, delivered by device 0's flush
  r.add_record(rec(0, 1));
  r.add_record(rec(1, 3, 1400, 1500));  // device 1's, correlation not delivered yet
  auto ta = r.take(0, a);
  EXPECT_EQ(correlations(ta.records), (std::set<uint32_t>{1}));
  r.add_correlation(3, b);
  auto tb = r.take(1, b);
  EXPECT_EQ(correlations(tb.records), (std::set<uint32_t>{2, 3}));
  EXPECT_DOUBLE_EQ(kgate::gpu::summarize(tb.records).union_us, 0.4);
}

TEST(ActivityRouter, ExternalIdsAreUniqueAcrossThreads) {
  ActivityRouter r(1 << 20);
  std::vector<std::vector<uint64_t>> ids(4);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) ids[t].push_back(r.begin(static_cast<uint32_t>(t)));
    });
  for (auto& t : ts) t.join();
  std::set<uint64_t> all;
  for (const auto& v : ids) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 8000u);
  for (int t = 0; t < 4; ++t)
    for (uint64_t id : ids[t]) r.abandon(id);
  EXPECT_EQ(r.stats().in_flight, 0u);
}

TEST(ActivityRouter, UnmatchedRecordsAgeOutAsOrphans) {
  ActivityRouter r(/*max_age=*/4);
  r.add_record(rec(0, 999));  // the L2 flush's memset: outside any measurement
  for (int i = 0; i < 10; ++i) {
    uint64_t id = r.begin(0);
    r.add_correlation(static_cast<uint32_t>(i), id);
    r.add_record(rec(0, static_cast<uint32_t>(i)));
    EXPECT_EQ(r.take(0, id).records.size(), 1u);
  }
  auto st = r.stats();
  EXPECT_EQ(st.pending_records, 0u);
  EXPECT_EQ(st.orphan_records, 1u);
}

TEST(ActivityRouter, PendingStoreIsCappedWithoutAnyMeasurement) {
  ActivityRouter r(/*max_age=*/1000, /*max_pending=*/8);
  for (uint32_t c = 0; c < 100; ++c) r.add_record(rec(0, c));
  auto st = r.stats();
  EXPECT_EQ(st.pending_records, 8u);
  EXPECT_EQ(st.orphan_records, 92u);
}

TEST(ActivityRouter, LateAndAbandonedRecordsReachNobodyElse) {
  ActivityRouter r(/*max_age=*/2);
  uint64_t a = r.begin(0);
  r.add_correlation(1, a);
  r.add_record(rec(0, 1));
  EXPECT_EQ(r.take(0, a).records.size(), 1u);
  r.add_record(rec(0, 1));  // a late duplicate for a taken id: pending, then an orphan
  uint64_t b = r.begin(0);
  r.add_correlation(2, b);
  r.abandon(b);             // its launch threw
  r.add_record(rec(0, 2));  // its records still arrive
  for (int i = 0; i < 5; ++i) {
    uint64_t id = r.begin(0);
    r.add_correlation(100 + static_cast<uint32_t>(i), id);
    r.add_record(rec(0, 100 + static_cast<uint32_t>(i)));
    EXPECT_EQ(correlations(r.take(0, id).records), (std::set<uint32_t>{100 + static_cast<uint32_t>(i)}));
  }
  auto st = r.stats();
  EXPECT_EQ(st.pending_records, 0u);
  EXPECT_EQ(st.open_external_ids, 0u);
  EXPECT_EQ(st.orphan_records, 2u);
}

TEST(ActivityRouter, ForeignExternalIdsAreIgnored) {
  ActivityRouter r(/*max_age=*/2);
  uint64_t a = r.begin(0);
  r.add_correlation(5, a + 1000);  // another CUPTI client's CUSTOM0 id
  r.add_correlation(6, 0);
  r.add_record(rec(0, 5));
  EXPECT_TRUE(r.take(0, a).records.empty());
  EXPECT_EQ(r.stats().open_external_ids, 0u);
}

TEST(ActivityRouter, DroppedRecordsAreChargedPerDevice) {
  ActivityRouter r;
  const uintptr_t ctx0 = 0x1000, ctx1 = 0x2000;
  r.map_context(ctx0, 0);
  r.map_context(ctx1, 1);
  r.add_dropped(ctx1, 7);  // before both measurements: nobody's
  uint64_t a = r.begin(0), b = r.begin(1);
  r.add_dropped(ctx1, 3);
  r.add_correlation(1, a);
  r.add_correlation(2, b);
  r.add_record(rec(0, 1));
  r.add_record(rec(1, 2));
  EXPECT_EQ(r.take(0, a).dropped, 0u);
  EXPECT_EQ(r.take(1, b).dropped, 3u);
  // A drop CUPTI reports for no known context (its global buffers) could be anyone's.
  a = r.begin(0);
  b = r.begin(1);
  r.add_dropped(0, 2);
  EXPECT_EQ(r.take(0, a).dropped, 2u);
  EXPECT_EQ(r.take(1, b).dropped, 2u);
  // A sample whose records touch device 1 is charged device 1's drops too.
  a = r.begin(0);
  r.add_correlation(3, a);
  r.add_record(rec(1, 3));
  r.add_dropped(ctx1, 1);
  EXPECT_EQ(r.take(0, a).dropped, 1u);
}

TEST(ActivityRouter, TakeChecksTheDevice) {
  ActivityRouter r;
  uint64_t a = r.begin(0);
  EXPECT_THROW(r.take(1, a), std::logic_error);
  EXPECT_NO_THROW(r.take(0, a));
  EXPECT_THROW(r.take(0, a), std::logic_error);  // taken once
}

// Two devices, one measuring thread each, all at once, through one simulated CUPTI: every item
// (record or correlation) goes to a process-wide queue, and any thread's flush delivers the
// whole queue in a shuffled order, so a thread's records land in the other thread's flush,
// before or after their correlation, in another buffer than it. Each measurement must get
// exactly its own records; the flush memsets (never correlated) must end pending or orphaned.
// The age limit is above the ids the test issues: a record waiting for its correlation ages by
// ids the other thread issues, which, as threads are scheduled, is unbounded (with an age of 16,
// one record in 12000 aged out under ASan on a loaded machine); aging and the bound on pending
// records are UnmatchedRecordsAgeOutAsOrphans' and PendingStoreIsCappedWithoutAnyMeasurement's.
TEST(ActivityRouter, TwoDevicesMeasuringConcurrently) {
  constexpr uint64_t kMaxAge = uint64_t{1} << 14;
  ActivityRouter r(kMaxAge);
  using Item = std::variant<ActivityRecord, std::pair<uint32_t, uint64_t>>;
  std::mutex qmu;
  std::vector<Item> queue;
  std::atomic<uint32_t> next_corr{1};
  auto enqueue = [&](Item it) {
    std::lock_guard<std::mutex> lock(qmu);
    queue.push_back(std::move(it));
  };
  auto flush = [&](std::mt19937& rng) {
    std::vector<Item> batch;
    {
      std::lock_guard<std::mutex> lock(qmu);
      r.begin_delivery();  // CUPTI hands a buffer to a deliverer: from here on it is in flight
      batch.swap(queue);
    }
    std::shuffle(batch.begin(), batch.end(), rng);
    // A slow deliverer: the other thread's take must wait for this buffer, not race past it.
    if (!batch.empty()) std::this_thread::sleep_for(std::chrono::microseconds(20));
    for (auto& it : batch) {
      if (auto* rec = std::get_if<ActivityRecord>(&it))
        r.add_record(std::move(*rec));
      else {
        auto [c, e] = std::get<std::pair<uint32_t, uint64_t>>(it);
        r.add_correlation(c, e);
      }
    }
    r.end_delivery();
  };
  constexpr int kSamples = 3000;
  std::atomic<uint64_t> taken_total{0}, made_total{0}, noise_total{0};
  std::atomic<int> mismatches{0};
  auto rank = [&](uint32_t device) {
    std::mt19937 rng(device * 7919 + 1);
    for (int i = 0; i < kSamples; ++i) {
      enqueue(rec(device, next_corr++, 0, 10, "memset"));  // the flush: never correlated
      ++noise_total;
      uint64_t id = r.begin(device);
      std::set<uint32_t> mine;
      std::vector<Item> later;
      const int n = 1 + i % 3;
      for (int k = 0; k < n; ++k) {
        uint32_t c = next_corr++;
        mine.insert(c);
        Item record = rec(device, c, 1000u * i + 10u * k, 1000u * i + 10u * k + 5, "k");
        Item corr = std::make_pair(c, id);
        const bool record_first = rng() & 1;
        enqueue(record_first ? record : corr);
        Item second = record_first ? corr : record;
        if (rng() & 1)
          enqueue(std::move(second));  // same buffer (shuffled: either order)
        else
          later.push_back(std::move(second));  // a later buffer
      }
      if (rng() & 1) flush(rng);  // the first halves may go out in a buffer of their own
      for (auto& it : later) enqueue(std::move(it));
      std::this_thread::sleep_for(std::chrono::microseconds(10));  // the device synchronize
      flush(rng);
      auto t = r.take(device, id);
      made_total += n;
      taken_total += t.records.size();
      bool ok = correlations(t.records) == mine && t.records.size() == mine.size() && t.dropped == 0;
      for (const auto& x : t.records) ok &= x.device == device;
      if (!ok) ++mismatches;
    }
  };
  std::thread d0(rank, 0u), d1(rank, 1u);
  d0.join();
  d1.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(taken_total.load(), made_total.load()) << "records lost or counted twice";
  auto st = r.stats();
  EXPECT_EQ(st.in_flight, 0u);
  EXPECT_EQ(st.open_external_ids, 0u);
  EXPECT_EQ(st.orphan_records + st.pending_records, noise_total.load()) << "every flush memset is pending or orphaned";
  static_assert(2 * kSamples < kMaxAge, "both threads together issue fewer ids than the age limit");
}
