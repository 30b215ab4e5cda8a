#pragma once
// The timed-call proof's device side (RowContext's add_input_sets / load_input), shared by the
// families' GPU row contexts: a row's K input sets live in per-set master buffers and are copied,
// stream-ordered, into the live buffers the arms' args point to; the live addresses never change
// (a captured graph stays valid, an arm that memoizes by pointer sees new contents).
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "harness/gpu/device.hpp"

namespace kgate::gpu {

// Device memory left free beside a row's buffers, the flush buffer and the proof's copies: the
// arms' own workspaces (cuBLAS, NCCL, an export's scheduler plan) are allocated after them.
inline constexpr size_t kProofReserveBytes = size_t{1} << 30;

// Throws MemoryShort naming `what` and the sizes when `bytes` more would leave less than
// kProofReserveBytes free: the executor frees the other rows' kept inputs and tries the unit once
// more; input sets or oracles that still do not fit fail the row, they never shrink the flush.
void require_free(size_t bytes, const std::string& what);

// A byte copy of src into dst (same size) on s.
void copy_async(const DeviceBuffer& dst, const DeviceBuffer& src, cudaStream_t s);

class InputSets {
 public:
  // The buffers whose contents rotate: their current contents (written, on s, before this call)
  // become set 0.
  void bind(std::vector<const DeviceBuffer*> live, cudaStream_t s);
  // One more set: fill(i, master) writes live buffer i's contents for the new set into master,
  // already sized like it.
  void add(const std::function<void(size_t, DeviceBuffer&)>& fill);
  // Set k's contents into the live buffers, on s.
  void load(int k, cudaStream_t s);
  int size() const { return static_cast<int>(sets_.size()); }
  int loaded() const { return loaded_; }
  // Live buffer i's contents in set k, as made: no arm writes a master (an oracle reads them).
  const DeviceBuffer& master(int k, size_t i) const { return sets_.at(static_cast<size_t>(k)).at(i); }
  size_t set_bytes() const;  // one set's master bytes

 private:
  std::vector<const DeviceBuffer*> live_;
  std::vector<std::vector<DeviceBuffer>> sets_;
  int loaded_ = 0;
};

// A host problem lent another input set's inputs for a scope: swap() (an exchange of the
// problem's per-call vectors with the set's) runs at construction and again at scope exit.
template <class Swap>
class SwappedIn {
 public:
  explicit SwappedIn(Swap swap) : swap_(std::move(swap)) { swap_(); }
  ~SwappedIn() { swap_(); }
  SwappedIn(const SwappedIn&) = delete;
  SwappedIn& operator=(const SwappedIn&) = delete;

 private:
  Swap swap_;
};

}  // namespace kgate::gpu
