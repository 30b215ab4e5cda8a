#include "harness/gpu/peer_table.hpp"

#include "harness/core/errors.hpp"
#include "harness/run/executor.hpp"

namespace kgate::gpu {

namespace {

// The row of a key "ROW/NAME" (NAME without '/'); the whole key where it has no '/'.
std::string row_of(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(0, slash);
}

}  // namespace

void PeerTable::publish(const std::string& key, int rank, const void* ptr) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& v = table_[key];
  v.resize(static_cast<size_t>(world_), nullptr);
  v.at(static_cast<size_t>(rank)) = ptr;
  cv_.notify_all();
}

void PeerTable::withdraw(const std::string& row_id, int rank, const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  withdrawn_[row_id].emplace(rank, why);
  cv_.notify_all();
}

std::vector<const void*> PeerTable::wait_all(const std::string& key) {
  std::unique_lock<std::mutex> lock(mu_);
  auto published = [&](size_t r) {
    auto it = table_.find(key);
    return it != table_.end() && it->second.size() > r && it->second[r];
  };
  // A rank that withdrew from the key's row and has not published the key never will.
  auto withdrawn = [&]() -> const std::pair<const int, std::string>* {
    auto w = withdrawn_.find(row_of(key));
    if (w == withdrawn_.end()) return nullptr;
    for (const auto& entry : w->second)
      if (!published(static_cast<size_t>(entry.first))) return &entry;
    return nullptr;
  };
  auto full = [&] {
    for (size_t r = 0; r < static_cast<size_t>(world_); ++r)
      if (!published(r)) return false;
    return true;
  };
  if (!cv_.wait_for(lock, timeout_, [&] { return full() || withdrawn(); })) {
    const std::string missing = missing_ranks(static_cast<size_t>(world_), [&](size_t r) { return !published(r); });
    throw DeviceError("peer exchange '" + key + "': rank(s) " + missing + " did not publish within " +
                      std::to_string(timeout_.count()) + " ms");
  }
  if (!full()) {
    const auto* w = withdrawn();
    throw DeviceError("peer exchange '" + key + "': rank " + std::to_string(w->first) +
                      " gave up the row before publishing it: " + w->second);
  }
  return table_[key];
}

}  // namespace kgate::gpu
