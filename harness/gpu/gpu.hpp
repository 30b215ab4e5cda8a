#pragma once
// The GPU backend's entry points (compiled only with CUDA; the CLI guards with KGATE_HAVE_CUDA).
#include <memory>
#include <string>

#include "harness/core/registry.hpp"
#include "harness/run/campaign.hpp"

namespace kgate::gpu {

bool device_present(std::string* why);
// "sm_90: NVIDIA H200, 132 SMs, 60 MiB L2" for device `ordinal`.
std::string describe_device(int ordinal = 0);
// timer: "cupti" (falls back to "events", saying why, when CUPTI is held) or "events".
// Measures on device 0, or on `ordinal` (from the thread that will measure: a rank's).
std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm);
std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm, int ordinal);
// A backend simulating `world_size` ranks on GPU 0 (RankRole::simulated).
std::unique_ptr<Backend> make_simulated_backend(const std::string& timer, bool warm, int world_size);

}  // namespace kgate::gpu
