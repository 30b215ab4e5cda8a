#include "harness/gpu/proof.hpp"

#include <stdexcept>

namespace kgate::gpu {

void require_free(size_t bytes, const std::string& what) {
  size_t free = 0, total = 0;
  KGATE_CUDA(cudaMemGetInfo(&free, &total));
  if (free >= bytes + kProofReserveBytes) return;
  throw MemoryShort(what + ": " + std::to_string(bytes >> 20) + " MiB do not fit beside the row's buffers and the " +
                    "flush (" + std::to_string(free >> 20) + " MiB free of " + std::to_string(total >> 20) + ", " +
                    std::to_string(kProofReserveBytes >> 20) + " MiB kept for the arms' workspaces)");
}

void copy_async(const DeviceBuffer& dst, const DeviceBuffer& src, cudaStream_t s) {
  if (dst.bytes() != src.bytes()) throw DeviceError("copy_async: buffers of different sizes");
  KGATE_CUDA(cudaMemcpyAsync(dst.get(), src.get(), src.bytes(), cudaMemcpyDeviceToDevice, s));
}

void InputSets::bind(std::vector<const DeviceBuffer*> live, cudaStream_t s) {
  live_ = std::move(live);
  sets_.clear();
  add([&](size_t i, DeviceBuffer& master) { copy_async(master, *live_[i], s); });
  KGATE_CUDA(cudaStreamSynchronize(s));
  loaded_ = 0;
}

size_t InputSets::set_bytes() const {
  size_t n = 0;
  for (const DeviceBuffer* b : live_) n += b->bytes();
  return n;
}

void InputSets::add(const std::function<void(size_t, DeviceBuffer&)>& fill) {
  require_free(set_bytes(), "input set " + std::to_string(sets_.size()));
  std::vector<DeviceBuffer> set;
  for (size_t i = 0; i < live_.size(); ++i) {
    set.emplace_back(live_[i]->bytes());
    fill(i, set.back());
  }
  sets_.push_back(std::move(set));
}

void InputSets::load(int k, cudaStream_t s) {
  if (k < 0 || k >= size())
    throw std::logic_error("input set " + std::to_string(k) + " of " + std::to_string(size()) + " loaded");
  for (size_t i = 0; i < live_.size(); ++i) copy_async(*live_[i], sets_[static_cast<size_t>(k)][i], s);
  loaded_ = k;
}

}  // namespace kgate::gpu
