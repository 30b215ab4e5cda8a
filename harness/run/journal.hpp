#pragma once
// The run's journal, <out>.journal: a header naming the run's identity, then one line per
// finished unit, each fsync'd, so a killed run resumes without losing a unit. The journal is
// held under an exclusive lock (flock) for the run's lifetime: a second run on the same --out,
// or a --resume while the first still runs, is refused before it does any work.
#include <string>
#include <vector>

#include "harness/core/records.hpp"

namespace kgate {

class Journal {
 public:
  // A fresh journal: refuses when one exists (an unfinished run: --resume it, or remove it).
  static Journal create(const std::string& path, const json& header);
  // Reopens a killed run's journal: its header must carry `identity_sha256`; returns the units
  // it holds. A torn last line (killed mid-append) is dropped.
  static Journal resume(const std::string& path, const std::string& identity_sha256, std::vector<UnitResult>* units);
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
