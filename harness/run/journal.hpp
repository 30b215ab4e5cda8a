#pragma once
// The run's journal, <out>.journal: a header naming the run's identity and the machine it runs
// on, then one line per finished unit, each fsync'd, so a killed run resumes without losing a
// unit. The journal is held under an exclusive lock (flock) for the run's lifetime: a second run
// on the same --out, or a --resume while the first still runs, is refused before it does any
// work. A journal without a whole header (killed while creating it) holds nothing: a fresh run
// or a --resume starts it over.
#include <string>
#include <vector>

#include "harness/core/records.hpp"

namespace kgate {

// What a resumed run must share with the run it continues besides its identity: the GPUs (UUID)
// and driver and runtime versions, or on the CPU backend the host (name, CPU model, OS); from
// the backend's recorded environment.
json machine_identity(const json& environment);

class Journal {
 public:
  // A fresh journal under `header` (an object: kind "header", identity_sha256, machine):
  // refuses when one with a header exists (an unfinished run: --resume it, or remove it).
  static Journal create(const std::string& path, const json& header);
  // Reopens a killed run's journal: its header must carry header's identity_sha256 and
  // machine; returns the units it holds. A torn last line (killed mid-append) is dropped.
  static Journal resume(const std::string& path, const json& header, std::vector<UnitResult>* units);
  // Before any work: refuses a journal that is not a regular file, one a running kgate holds,
  // one that exists without `resume` (unless it holds no header) or is missing with it.
  static void preflight(const std::string& path, bool resume);
  Journal(Journal&& o) noexcept : fd_(o.fd_), path_(std::move(o.path_)) { o.fd_ = -1; }
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal();
  void append(const UnitResult& u);
  // The run is sealed: the journal goes (still under the lock).
  void finish();
  const std::string& path() const { return path_; }

 private:
  Journal(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  void append_line(const std::string& line);
  int fd_ = -1;
  std::string path_;
};

}  // namespace kgate
