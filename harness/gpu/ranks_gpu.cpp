// The GPU side of the rank runners (harness/gpu/gpu.hpp): NCCL communicators for rank threads of
// one process and for rank processes started by a launcher.
#include <nccl.h>

#include <future>
#include <thread>

#include "harness/core/crypto.hpp"
#include "harness/gpu/backend.hpp"
#include "harness/gpu/check.hpp"
#include "harness/gpu/gpu.hpp"
#include "harness/run/ranks.hpp"

namespace kgate::gpu {
namespace {

int visible_gpus() {
  int n = 0;
  KGATE_CUDA(cudaGetDeviceCount(&n));
  return n;
}

// The job's communicators, destroyed when the last rank's backend lets go of them.
struct Comms {
  std::vector<ncclComm_t> c;
  ~Comms() {
    for (ncclComm_t x : c)
      if (x) KGATE_NCCL_NOEXCEPT(ncclCommDestroy(x));
  }
};

}  // namespace

std::vector<std::unique_ptr<Backend>> make_thread_rank_backends(const std::string& timer, bool warm, int n,
                                                                std::chrono::milliseconds timeout) {
  if (n < 1) throw InputError("--gpus: must be >= 1, got " + std::to_string(n));
  if (const int have = visible_gpus(); have < n)
    throw InputError("--gpus " + std::to_string(n) + ": only " + std::to_string(have) + " GPU(s) visible");
  auto comms = std::make_shared<Comms>();
  comms->c.resize(static_cast<size_t>(n), nullptr);
  std::vector<int> devs(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) devs[static_cast<size_t>(r)] = r;
  KGATE_NCCL(ncclCommInitAll(comms->c.data(), n, devs.data()));
  auto peers = std::make_shared<PeerTable>(n, timeout);
  std::vector<std::unique_ptr<Backend>> out;
  for (int r = 0; r < n; ++r) {
    RankRole role;
    role.rank = r;
    role.world_size = n;
    role.comm = comms->c[static_cast<size_t>(r)];
    role.peers = peers;
    role.runner = "threads";
    role.job = comms;
    out.push_back(std::make_unique<GpuBackend>(timer, warm, r, std::move(role)));
  }
  return out;
}

ProcessRank make_process_rank_backend(const std::string& timer, bool warm, const std::string& rendezvous,
                                      std::chrono::milliseconds timeout) {
  const ranks::RankEnv env = ranks::rank_env_from_process();
  const int have = visible_gpus();
  // One GPU per task (srun --gpus-per-task=1): the task sees only its own, as device 0.
  const int dev = have == 1 ? 0 : env.local_rank;
  if (dev >= have)
    throw InputError("--rendezvous: local rank " + std::to_string(env.local_rank) + " (" + env.launcher +
                     ") but only " + std::to_string(have) + " GPU(s) visible");
  const std::string tag = ranks::rendezvous_tag(env);
  ncclUniqueId id{};
  if (env.rank == 0) {
    KGATE_NCCL(ncclGetUniqueId(&id));
    ranks::publish(rendezvous, tag, env.world_size,
                   std::vector<uint8_t>(reinterpret_cast<uint8_t*>(id.internal),
                                        reinterpret_cast<uint8_t*>(id.internal) + sizeof(id.internal)));
  } else {
    const std::vector<uint8_t> got = ranks::wait_for(rendezvous, tag, env.world_size, timeout);
    if (got.size() != sizeof(id.internal))
      throw InputError("--rendezvous " + rendezvous + ": the id is " + std::to_string(got.size()) + " bytes, NCCL's " +
                       std::to_string(sizeof(id.internal)));
    std::copy(got.begin(), got.end(), reinterpret_cast<uint8_t*>(id.internal));
  }
  // ncclCommInitRank blocks until every rank has joined: run it aside and wait, bounded.
  auto comms = std::make_shared<Comms>();
  comms->c.resize(1, nullptr);
  auto init = std::make_shared<std::promise<ncclResult_t>>();
  std::future<ncclResult_t> done = init->get_future();
  const int world = env.world_size, rank = env.rank;
  std::thread([init, comms, id, dev, world, rank] {
    cudaSetDevice(dev);
    init->set_value(ncclCommInitRank(&comms->c[0], world, id, rank));
  }).detach();
  if (done.wait_for(timeout) != std::future_status::ready)
    throw DeviceError("--rendezvous: rank " + std::to_string(rank) + " of " + std::to_string(world) +
                      ": the NCCL communicator did not form within " + std::to_string(timeout.count() / 1000.0) +
                      " s (a rank missing?)");
  KGATE_NCCL(done.get());
  RankRole role;
  role.rank = rank;
  role.world_size = world;
  role.comm = comms->c[0];
  role.runner = "processes";
  role.job = comms;
  ProcessRank p;
  p.backend = std::make_unique<GpuBackend>(timer, warm, dev, std::move(role));
  p.job_key = sha256_hex(std::string_view(id.internal, sizeof(id.internal))).substr(0, 16);
  p.rank = rank;
  p.world_size = world;
  return p;
}

}  // namespace kgate::gpu
