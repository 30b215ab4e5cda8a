#pragma once
// How the rank threads of one process hand each other device pointers. No CUDA here: the table
// only stores and waits (unit-tested on the CPU).
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace kgate::gpu {

// Rank r publishes its buffer under a key, "ROW/NAME" (a row's id, '/', what the buffer is, NAME
// without '/'), then waits, bounded, until every rank has published that key. A rank that never
// publishes makes the others' wait throw DeviceError naming the key and the missing ranks; a rank
// whose inputs for a row failed withdraws from that row (GpuBackend::prepare does it), so that
// every wait on the row's keys that still needs that rank's pointer throws at once, with the
// rank's reason, instead of waiting out the bound (a campaign prepares a row once).
class PeerTable {
 public:
  PeerTable(int world_size, std::chrono::milliseconds timeout) : world_(world_size), timeout_(timeout) {}
  void publish(const std::string& key, int rank, const void* ptr);
  std::vector<const void*> wait_all(const std::string& key);
  // Rank `rank` will publish nothing more for row `row_id`: `why` is what it failed with.
  void withdraw(const std::string& row_id, int rank, const std::string& why);
  int world_size() const { return world_; }

 private:
  int world_;
  std::chrono::milliseconds timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::vector<const void*>> table_;
  std::map<std::string, std::map<int, std::string>> withdrawn_;  // row id -> rank -> why
};

}  // namespace kgate::gpu
