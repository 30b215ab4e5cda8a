#pragma once
// Multi-rank launch plumbing, plain C++ (no NCCL here): where a rank process learns its rank and
// world size from the cluster launcher's environment, and the rendezvous file through which rank 0
// hands the other ranks the communicator's unique id. The rank runners (threads of one process
// on one node, or processes started by srun / mpirun) are built on these.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/run/executor.hpp"

namespace kgate::ranks {

// A rank's place in the job. launcher: "none" (no launcher variables: one process, world 1),
// "slurm", "openmpi", "pmi" (MPICH / Intel MPI: PMI_RANK, PMI_SIZE). job: the launcher's job (and
// step) identity, "" when it has none; it tags the rendezvous so a file left by an earlier job
// or step is never taken for this one's.
struct RankEnv {
  int rank = 0, world_size = 1, local_rank = 0;
  std::string launcher = "none", job;
};

using EnvLookup = std::function<const char*(const char*)>;  // getenv's shape: nullptr when unset

// Reads the launcher's variables. Every launcher whose rank and size variables are both set is
// read; they must agree. Throws InputError, naming the variables, on a value that is not an
// integer, a rank outside [0, world size), a world size < 1, only one of a launcher's pair set,
// or two launchers that disagree.
RankEnv rank_env(const EnvLookup& get);
RankEnv rank_env_from_process();  // rank_env over getenv

// The rendezvous file: rank 0 publishes, the other ranks wait for it. Its content is one JSON
// object {"kgate_rendezvous": 1, "tag": ..., "world_size": ..., "id": hex}; rank 0 writes it
// atomically (a reader sees no file or the whole file). The tag is the launcher's job identity
// plus the world size (rendezvous_tag), so a rank reads only its own job's file.
std::string rendezvous_tag(const RankEnv& env);
void publish(const std::string& path, const std::string& tag, int world_size, const std::vector<uint8_t>& id);
// Waits until PATH holds this tag's id and returns it. A file with another tag is an earlier
// job's: it is ignored (rank 0 will replace it) until the timeout. Throws DeviceError on the
// timeout (naming the path, the tag, the seconds waited and what the file held, if anything) and
// InputError when this tag's file names another world size or is not a rendezvous file.
std::vector<uint8_t> wait_for(const std::string& path, const std::string& tag, int world_size,
                              std::chrono::milliseconds timeout,
                              std::chrono::milliseconds poll = std::chrono::milliseconds(20));

// The rank processes' unit exchange through files in DIR (on the filesystem the rendezvous file
// is on, shared by the nodes): rank r writes DIR/<key>.<seq>.<r>.json atomically, then reads every
// other rank's file of that seq, polling, bounded by `timeout` (DeviceError naming the ranks it
// waited for, the seq and the seconds). key names this job (the communicator id's digest: a new id
// per run, so an earlier run's files are never read). A rank deletes its own file of seq - 1 once
// seq is complete (every rank has then read it).
class FileExchange final : public UnitExchange {
 public:
  FileExchange(std::string dir, std::string key, int rank, int world_size, std::chrono::milliseconds timeout,
               std::chrono::milliseconds poll = std::chrono::milliseconds(5));
  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  std::vector<std::string> allgather(uint64_t seq, const std::string& mine) override;

 private:
  std::string path(uint64_t seq, int rank) const;
  std::string dir_, key_;
  int rank_, world_;
  std::chrono::milliseconds timeout_, poll_;
};

// Bytes <-> lowercase hex (the id's form in the file). from_hex throws InputError on odd length
// or a non-hex character.
std::string to_hex(const std::vector<uint8_t>& bytes);
std::vector<uint8_t> from_hex(const std::string& hex);

}  // namespace kgate::ranks
