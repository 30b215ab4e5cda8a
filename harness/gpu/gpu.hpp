#pragma once
// The GPU backend's entry points (compiled only with CUDA; the CLI guards with KGATE_HAVE_CUDA).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"

namespace kgate::gpu {

bool device_present(std::string* why);
// The architectures this build's device code is for ("sm_80", "sm_90a", "sm_100a": the real
// targets of CMAKE_CUDA_ARCHITECTURES), which every bundled GPU arm declares unless it names fewer.
std::vector<std::string> built_archs();
// "sm_90: NVIDIA H200, 132 SMs, 60 MiB L2" for device `ordinal`.
std::string describe_device(int ordinal = 0);
// timer: "cupti" (falls back to "events", saying why, when CUPTI is held) or "events".
// Measures on device 0, or on `ordinal` (from the thread that will measure: a rank's).
std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm);
std::unique_ptr<Backend> make_backend(const std::string& timer, bool warm, int ordinal);
// A backend simulating `world_size` ranks on GPU 0 (RankRole::simulated).
std::unique_ptr<Backend> make_simulated_backend(const std::string& timer, bool warm, int world_size);

// `n` ranks as threads of this process: rank r's backend on visible GPU r, one NCCL communicator
// over them (ncclCommInitAll), a peer table for device pointers (waits bounded by `timeout`); the
// communicators live until the last of the backends. InputError when fewer than n GPUs are visible.
std::vector<std::unique_ptr<Backend>> make_thread_rank_backends(const std::string& timer, bool warm, int n,
                                                                std::chrono::milliseconds timeout);

// This process as one rank of a job started by a launcher (harness/run/ranks.hpp: rank, world
// size and local rank from its variables): its backend on visible GPU local_rank, the NCCL
// communicator made from the unique id rank 0 hands out through the rendezvous file at
// `rendezvous`. Every wait is bounded by `timeout` (DeviceError naming what it waited for).
// job_key names this job's communicator (a digest of its unique id) for the unit exchange.
struct ProcessRank {
  std::unique_ptr<Backend> backend;
  std::string job_key;
  int rank = 0, world_size = 1;
};
ProcessRank make_process_rank_backend(const std::string& timer, bool warm, const std::string& rendezvous,
                                      std::chrono::milliseconds timeout);

}  // namespace kgate::gpu
