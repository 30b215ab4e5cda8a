// Rank environment and rendezvous file: harness/run/ranks.hpp.
#include "harness/run/ranks.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/text.hpp"

namespace kgate::ranks {
namespace {

struct Launcher {
  const char *name, *rank, *size, *local;
  std::vector<const char*> job;  // joined with "." where set
};
const std::vector<Launcher>& launchers() {
  static const std::vector<Launcher> l = {
      {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", {"SLURM_JOB_ID", "SLURM_STEP_ID"}},
      {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", {"PMIX_NAMESPACE"}},
      {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", {"PMI_JOBID"}},
  };
  return l;
}

int int_var(const char* name, const char* v) {
  errno = 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*v == '\0' || *end != '\0' || errno || x < 0 || x > 1 << 30)
    throw InputError(std::string("rank environment: ") + name + "=" + quoted(v) + " is not a non-negative integer");
  return static_cast<int>(x);
}

}  // namespace

RankEnv rank_env(const EnvLookup& get) {
  RankEnv env;
  const Launcher* first = nullptr;
  for (const Launcher& l : launchers()) {
    const char *r = get(l.rank), *s = get(l.size);
    if (!r && !s) continue;
    if (!r || !s)
      throw InputError(std::string("rank environment: ") + (r ? l.rank : l.size) + " is set but " +
                       (r ? l.size : l.rank) + " is not (" + l.name + ")");
    RankEnv e;
    e.launcher = l.name;
    e.rank = int_var(l.rank, r);
    e.world_size = int_var(l.size, s);
    if (e.world_size < 1) throw InputError(std::string("rank environment: ") + l.size + " must be >= 1");
    if (e.rank >= e.world_size)
      throw InputError(std::string("rank environment: ") + l.rank + "=" + r + " is not below " + l.size + "=" + s);
    const char* loc = get(l.local);
    e.local_rank = loc ? int_var(l.local, loc) : 0;
    for (const char* j : l.job)
      if (const char* v = get(j)) e.job += (e.job.empty() ? "" : ".") + std::string(v);
    if (!first) {
      first = &l;
      env = e;
    } else if (e.rank != env.rank || e.world_size != env.world_size) {
      throw InputError(std::string("rank environment: ") + first->name + " says rank " + std::to_string(env.rank) +
                       " of " + std::to_string(env.world_size) + ", " + l.name + " says rank " +
                       std::to_string(e.rank) + " of " + std::to_string(e.world_size));
    }
  }
  return env;
}

RankEnv rank_env_from_process() {
  return rank_env([](const char* n) { return static_cast<const char*>(std::getenv(n)); });
}

std::string rendezvous_tag(const RankEnv& env) {
  return env.launcher + ":" + (env.job.empty() ? "-" : env.job) + ":w" + std::to_string(env.world_size);
}

std::string to_hex(const std::vector<uint8_t>& bytes) { return kgate::to_hex(bytes.data(), bytes.size()); }

std::vector<uint8_t> from_hex(const std::string& hex) {
  if (hex.size() % 2) throw InputError("rendezvous: id has an odd number of hex digits");
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw InputError(std::string("rendezvous: id holds a non-hex character ") + quoted(std::string(1, c)));
  };
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(nib(hex[2 * i]) << 4 | nib(hex[2 * i + 1]));
  return out;
}

void publish(const std::string& path, const std::string& tag, int world_size, const std::vector<uint8_t>& id) {
  const json doc = {{"kgate_rendezvous", 1}, {"tag", tag}, {"world_size", world_size}, {"id", to_hex(id)}};
  write_file_atomic(path, doc.dump() + "\n");
}

std::vector<uint8_t> wait_for(const std::string& path, const std::string& tag, int world_size,
                              std::chrono::milliseconds timeout, std::chrono::milliseconds poll) {
  const auto start = std::chrono::steady_clock::now();
  std::string seen = "no file";
  for (;;) {
    if (file_exists(path)) {
      json doc;
      try {
        doc = json::parse(read_file(path));
      } catch (const json::exception&) {
        throw InputError("rendezvous " + quoted(path) + ": not JSON; not a kgate rendezvous file (remove it)");
      } catch (const InputError&) {
        doc = nullptr;  // vanished between the check and the read: rank 0 replacing it
      }
      if (!doc.is_null()) {
        if (!doc.is_object() || doc.value("kgate_rendezvous", 0) != 1 || !doc.contains("tag") ||
            !doc["tag"].is_string() || !doc.contains("id") || !doc["id"].is_string() || !doc.contains("world_size") ||
            !doc["world_size"].is_number_integer())
          throw InputError("rendezvous " + quoted(path) + ": not a kgate rendezvous file (remove it)");
        const std::string t = doc["tag"].get<std::string>();
        if (t == tag) {
          if (doc["world_size"].get<int>() != world_size)
            throw InputError("rendezvous " + quoted(path) + ": tag " + quoted(tag) + " names world size " +
                             std::to_string(doc["world_size"].get<int>()) + ", this rank has " +
                             std::to_string(world_size));
          return from_hex(doc["id"].get<std::string>());
        }
        seen = "tag " + quoted(t) + " (an earlier job's)";
      }
    }
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited >= timeout)
      throw DeviceError("rendezvous " + quoted(path) + ": no id for tag " + quoted(tag) + " after " +
                        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() / 1000.0) +
                        " s (the file held: " + seen +
                        "); is rank 0 running, and is the path on a filesystem every rank sees?");
    std::this_thread::sleep_for(poll);
  }
}

FileExchange::FileExchange(std::string dir, std::string key, int rank, int world_size,
                           std::chrono::milliseconds timeout, std::chrono::milliseconds poll)
    : dir_(std::move(dir)), key_(std::move(key)), rank_(rank), world_(world_size), timeout_(timeout), poll_(poll) {
  if (world_ < 1 || rank_ < 0 || rank_ >= world_)
    throw InputError("unit exchange: rank " + std::to_string(rank_) + " of world size " + std::to_string(world_));
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (!std::filesystem::is_directory(dir_))
    throw InputError("unit exchange: " + quoted(dir_) + " is not a directory and cannot be made one");
}

std::string FileExchange::path(uint64_t seq, int rank) const {
  return dir_ + "/" + key_ + "." + std::to_string(seq) + "." + std::to_string(rank) + ".json";
}

std::vector<std::string> FileExchange::allgather(uint64_t seq, const std::string& mine) {
  write_file_atomic(path(seq, rank_), json{{"seq", seq}, {"rank", rank_}, {"payload", mine}}.dump());
  std::vector<std::string> all(static_cast<size_t>(world_));
  all[static_cast<size_t>(rank_)] = mine;
  std::vector<bool> have(static_cast<size_t>(world_), false);
  have[static_cast<size_t>(rank_)] = true;
  const auto start = std::chrono::steady_clock::now();
  for (int left = world_ - 1; left > 0;) {
    for (int r = 0; r < world_; ++r) {
      if (have[static_cast<size_t>(r)] || !file_exists(path(seq, r))) continue;
      const json doc = json::parse(read_file(path(seq, r)));  // written by rename: whole
      if (doc.at("seq").get<uint64_t>() != seq || doc.at("rank").get<int>() != r)
        throw InputError("unit exchange: " + quoted(path(seq, r)) + " holds another unit (remove it)");
      all[static_cast<size_t>(r)] = doc.at("payload").get<std::string>();
      have[static_cast<size_t>(r)] = true;
      --left;
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() - start > timeout_) {
      const std::string missing = missing_ranks(static_cast<size_t>(world_), [&](size_t r) { return !have[r]; });
      throw DeviceError("unit exchange " + quoted(dir_) + ": rank(s) " + missing + " gave no result for unit " +
                        std::to_string(seq) + " within " + std::to_string(timeout_.count() / 1000.0) + " s");
    }
    std::this_thread::sleep_for(poll_);
  }
  if (seq > 0) std::remove(path(seq - 1, rank_).c_str());
  return all;
}

}  // namespace kgate::ranks
