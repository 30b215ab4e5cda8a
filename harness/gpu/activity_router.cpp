#include "harness/gpu/activity_router.hpp"

#include <set>
#include <stdexcept>

#include "harness/core/intervals.hpp"

namespace kgate::gpu {

RecordSummary summarize(const std::vector<ActivityRecord>& records) {
  std::vector<Interval> iv;
  std::set<std::string> names;
  std::map<std::string, uint64_t> ns;  // per activity, summed exactly, converted once
  RecordSummary s;
  double sum = 0;
  for (const auto& r : records) {
    iv.push_back({r.start, r.end, static_cast<int>(r.device)});
    names.insert(r.name);
    ++s.signature.records;
    s.signature.launches += r.kernel;
    s.graph_records += r.graph_id != 0;
    sum += static_cast<double>(r.end - r.start);
    ns[r.name] += r.end > r.start ? r.end - r.start : 0;
  }
  s.span_us = static_cast<double>(span_length(iv)) / 1000.0;
  s.union_us = static_cast<double>(union_length(iv)) / 1000.0;
  s.sum_us = sum / 1000.0;
  s.signature.kernel_names.assign(names.begin(), names.end());
  s.intervals_ns = merged_intervals(std::move(iv));
  for (const auto& [name, v] : ns) s.activity_us[name] = static_cast<double>(v) / 1000.0;
  return s;
}

ActivityRouter::ActivityRouter(uint64_t max_age, size_t max_pending) : max_age_(max_age), max_pending_(max_pending) {}

uint64_t ActivityRouter::begin(uint32_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t id = ++next_ext_;
  in_flight_[id] = InFlight{device, dropped_};
  age_locked();
  return id;
}

ActivityRouter::Taken ActivityRouter::take(uint32_t device, uint64_t ext) {
  std::unique_lock<std::mutex> lock(mu_);
  delivered_.wait(lock, [this] { return deliveries_ == 0; });
  auto f = in_flight_.find(ext);
  if (f == in_flight_.end() || f->second.device != device)
    throw std::logic_error("ActivityRouter::take: external id " + std::to_string(ext) + " was not begun on device " +
                           std::to_string(device));
  Taken t;
  std::set<uint32_t> touched = {device, kUnknownDevice};
  if (auto o = open_.find(ext); o != open_.end()) {
    for (uint32_t c : o->second.correlations) corr_to_ext_.erase(c);
    t.records = std::move(o->second.records);
    open_.erase(o);
  }
  for (const auto& r : t.records) touched.insert(r.device);
  for (uint32_t d : touched) {
    auto now = dropped_.find(d);
    if (now == dropped_.end()) continue;
    auto then = f->second.dropped_at_begin.find(d);
    t.dropped += now->second - (then == f->second.dropped_at_begin.end() ? 0 : then->second);
  }
  in_flight_.erase(f);
  return t;
}

void ActivityRouter::abandon(uint64_t ext) {
  std::lock_guard<std::mutex> lock(mu_);
  in_flight_.erase(ext);
  if (auto o = open_.find(ext); o != open_.end()) {
    for (uint32_t c : o->second.correlations) corr_to_ext_.erase(c);
    open_.erase(o);
  }
}

void ActivityRouter::begin_delivery() {
  std::lock_guard<std::mutex> lock(mu_);
  ++deliveries_;
}

void ActivityRouter::end_delivery() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --deliveries_;
  }
  delivered_.notify_all();
}

void ActivityRouter::add_record(ActivityRecord r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto m = corr_to_ext_.find(r.correlation); m != corr_to_ext_.end()) {
    open_[m->second].records.push_back(std::move(r));
    return;
  }
  auto [p, fresh] = pending_.try_emplace(r.correlation, Pending{next_ext_, {}});
  if (fresh) arrivals_.emplace_back(next_ext_, r.correlation);
  p->second.records.push_back(std::move(r));
  ++pending_count_;
  age_locked();
}

void ActivityRouter::add_correlation(uint32_t correlation, uint64_t ext) {
  std::lock_guard<std::mutex> lock(mu_);
  // Only ids this router issued: begin() issues before the id is pushed, so a larger (or zero)
  // id is another CUPTI client's, and would never be taken.
  if (ext == 0 || ext > next_ext_) return;
  corr_to_ext_[correlation] = ext;
  Open& o = open_[ext];
  o.correlations.push_back(correlation);
  if (auto p = pending_.find(correlation); p != pending_.end()) {
    pending_count_ -= p->second.records.size();
    for (auto& r : p->second.records) o.records.push_back(std::move(r));
    pending_.erase(p);
  }
  age_locked();
}

void ActivityRouter::map_context(uintptr_t context, uint32_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  ctx_device_[context] = device;
}

void ActivityRouter::add_dropped(uintptr_t context, uint64_t n) {
  if (n == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto d = ctx_device_.find(context);
  dropped_[d == ctx_device_.end() ? kUnknownDevice : d->second] += n;
}

// Pending records and open ids older than max_age_ issued ids are orphans: their measurement
// is long over (each thread has one in flight, and its records arrive with the flush after
// it). An id still in flight is never aged.
void ActivityRouter::age_locked() {
  while (!arrivals_.empty() && (arrivals_.front().first + max_age_ < next_ext_ || arrivals_.size() > max_pending_)) {
    auto [stamp, corr] = arrivals_.front();
    arrivals_.pop_front();
    auto p = pending_.find(corr);
    if (p == pending_.end() || p->second.stamp != stamp) continue;  // matched since
    orphan_records_ += p->second.records.size();
    pending_count_ -= p->second.records.size();
    pending_.erase(p);
  }
  for (auto o = open_.begin(); o != open_.end() && o->first + max_age_ < next_ext_;) {
    if (in_flight_.count(o->first)) {
      ++o;
      continue;
    }
    ++orphan_ids_;
    orphan_records_ += o->second.records.size();
    for (uint32_t c : o->second.correlations) corr_to_ext_.erase(c);
    o = open_.erase(o);
  }
}

RouterStats ActivityRouter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  RouterStats s;
  s.pending_records = pending_count_;
  s.open_external_ids = 0;
  for (const auto& [ext, o] : open_) s.open_external_ids += !in_flight_.count(ext);
  s.in_flight = in_flight_.size();
  s.orphan_records = orphan_records_;
  s.orphan_external_ids = orphan_ids_;
  return s;
}

}  // namespace kgate::gpu
