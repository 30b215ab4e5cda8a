#pragma once
// A region of device memory whose L2 residency a test can probe (tests/gpu/l2_probe.cu).
#include <cuda_runtime.h>

namespace kgate::test {
class L2Probe {
 public:
  explicit L2Probe(long long bytes);
  ~L2Probe();
  L2Probe(const L2Probe&) = delete;
  L2Probe& operator=(const L2Probe&) = delete;
  void prefetch_evict_last(cudaStream_t s);  // the whole region into L2 at evict_last priority
  double cycles_per_load(cudaStream_t s);    // mean latency of a dependent chase over its lines

 private:
  long long bytes_;
  void* region_ = nullptr;
  void* out_ = nullptr;
};
}  // namespace kgate::test
