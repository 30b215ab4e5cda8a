#include "harness/run/journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"

namespace kgate {

namespace {

void lock_or_refuse(int fd, const std::string& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(fd);
    if (e == EWOULDBLOCK)
      throw InputError(path +
                       ": another kgate run holds this journal (same --out still running); wait for it or "
                       "choose another --out");
    throw InputError(path + ": cannot lock (" + std::strerror(e) + ")");
  }
}

}  // namespace

Journal Journal::create(const std::string& path, const json& header) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST)
      throw InputError(path + ": a journal of an unfinished run exists; pass --resume to continue it, or remove it");
    throw InputError(path + ": cannot create the journal (" + std::strerror(errno) + ")");
  }
  lock_or_refuse(fd, path);
  Journal j(fd, path);
  j.append_line(canonicalize(header));
  return j;
}

Journal Journal::resume(const std::string& path, const std::string& identity_sha256, std::vector<UnitResult>* units) {
  int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) throw InputError(path + ": no journal to resume (run without --resume)");
    throw InputError(path + ": cannot open the journal (" + std::strerror(errno) + ")");
  }
  lock_or_refuse(fd, path);
  Journal j(fd, path);
  ::lseek(fd, 0, SEEK_SET);
  std::istringstream in(read_fd_all(fd));
  std::string line;
  size_t lineno = 0, kept = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string why;
    std::optional<json> parsed = parse_json_checked(line, why);
    if (!parsed) {
      // Only the last line can be torn (killed mid-append); drop it.
      if (in.peek() != EOF)
        throw InputError(path + ":" + std::to_string(lineno) + ": corrupt journal line (" + why + ")");
      break;
    }
    const json& rec = *parsed;
    if (lineno == 1) {
      if (!rec.is_object() || rec.value("kind", "") != "header" || rec.value("identity_sha256", "") != identity_sha256)
        throw InputError(path +
                         ": this journal is for a different run (cases, arms, protocol or binary differ); "
                         "rerun with the original flags or remove the journal");
    } else {
      try {
        units->push_back(unit_result_from_json(rec));
      } catch (const InputError& e) {
        throw InputError(path + ":" + std::to_string(lineno) + ": " + e.what());
      }
    }
    kept += line.size() + 1;
  }
  if (lineno == 0) throw InputError(path + ": empty journal");
  if (::ftruncate(fd, static_cast<off_t>(kept)) != 0)  // drop a torn tail before appending
    throw std::runtime_error(path + ": cannot truncate a torn tail (" + std::strerror(errno) + ")");
  return j;
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append_line(const std::string& line) {
  write_fd_all(fd_, line + "\n", path_);
  ::fsync(fd_);
}

void Journal::append(const UnitResult& u) { append_line(canonicalize(to_json(u))); }

void Journal::finish() {
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace kgate
