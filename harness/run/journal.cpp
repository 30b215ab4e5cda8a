#include "harness/run/journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/text.hpp"

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

// An existing journal, opened for appending (never through a link, never a FIFO or device: its
// reads must end); -1 when there is none.
int open_existing(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return -1;
    if (errno == ELOOP) throw InputError(printable(path) + ": the journal is a symbolic link; not following it");
    throw InputError(printable(path) + ": cannot open the journal (" + std::strerror(errno) + ")");
  }
  try {
    require_regular_fd(fd, path);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && static_cast<unsigned long long>(st.st_size) > kMaxReadBytes)
      throw InputError(printable(path) + ": a journal of " + std::to_string(st.st_size) + " bytes, more than the " +
                       std::to_string(kMaxReadBytes) + " kgate reads");
  } catch (...) {
    ::close(fd);
    throw;
  }
  return fd;
}

std::string contents(int fd, const std::string& path) {
  ::lseek(fd, 0, SEEK_SET);
  return read_fd_all(fd, kMaxReadBytes, path);
}

// The header is one line written and fsync'd at once: until its newline is there, the journal
// was killed while being created and holds nothing.
bool holds_header(const std::string& bytes) { return bytes.find('\n') != std::string::npos; }

void truncate_to(int fd, size_t size, const std::string& path) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
    throw std::runtime_error(path + ": cannot truncate (" + std::strerror(errno) + ")");
}

std::string unfinished_run(const std::string& path) {
  return path + ": a journal of an unfinished run exists; pass --resume to continue it, or remove it";
}

std::string describe_machine(const json& m) {
  if (!m.is_object()) return "an unrecorded machine";
  std::string s;
  for (const auto& g : m.value("gpus", json::array()))
    s += (s.empty() ? "" : ", ") + g.value("uuid", std::string("?")) + " (driver " + g.value("driver", json()).dump() +
         ", runtime " + g.value("runtime", json()).dump() + ")";
  if (!s.empty()) return s;
  return "host " + quoted(m.value("host", std::string("?"))) + " (" + m.value("cpu", std::string("?")) + ", " +
         m.value("os", std::string("?")) + ")";
}

void check_header(const json& rec, const json& header, const std::string& path) {
  if (!rec.is_object() || rec.value("kind", "") != "header" ||
      rec.value("identity_sha256", "") != header.value("identity_sha256", ""))
    throw InputError(path +
                     ": this journal is for a different run (cases, arms, protocol or binary differ); "
                     "rerun with the original flags or remove the journal");
  const json recorded = rec.value("machine", json());
  if (recorded != header.at("machine"))
    throw InputError(path + ": this journal's units ran on " + describe_machine(recorded) + ", this machine is " +
                     describe_machine(header.at("machine")) +
                     "; one receipt's units come from one machine: run without --resume after removing the journal");
}

}  // namespace

json machine_identity(const json& environment) {
  json m = {{"backend", environment.value("backend", "")}};
  json gpus = json::array();
  for (const auto& g : environment.value("gpus", json::array()))
    if (g.is_object())
      gpus.push_back({{"uuid", g.value("uuid", json())},
                      {"driver", g.value("driver_version", json())},
                      {"runtime", g.value("runtime_version", json())}});
  m["gpus"] = gpus;
  if (gpus.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    m["host"] = printable(host);
    m["cpu"] = environment.value("cpu", "");
    m["os"] = environment.value("os", "");
  }
  return m;
}

void Journal::preflight(const std::string& path, bool resume) {
  const int fd = open_existing(path);
  if (fd < 0) {
    if (resume) throw InputError(path + ": no journal to resume (run without --resume)");
    return;
  }
  lock_or_refuse(fd, path);  // released on close: the run takes it again when it starts
  std::string bytes;
  try {
    bytes = contents(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (!resume && holds_header(bytes)) throw InputError(unfinished_run(path));
}

Journal Journal::create(const std::string& path, const json& header) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0 && errno == EEXIST && (fd = open_existing(path)) >= 0) {
    lock_or_refuse(fd, path);
    Journal j(fd, path);
    if (holds_header(contents(fd, path))) throw InputError(unfinished_run(path));
    truncate_to(fd, 0, path);  // a header torn by a kill: nothing was journalled
    j.append_line(canonicalize(header));
    return j;
  }
  if (fd < 0) throw InputError(path + ": cannot create the journal (" + std::strerror(errno) + ")");
  lock_or_refuse(fd, path);
  Journal j(fd, path);
  j.append_line(canonicalize(header));
  return j;
}

Journal Journal::resume(const std::string& path, const json& header, std::vector<UnitResult>* units) {
  const int fd = open_existing(path);
  if (fd < 0) throw InputError(path + ": no journal to resume (run without --resume)");
  lock_or_refuse(fd, path);
  Journal j(fd, path);
  const std::string bytes = contents(fd, path);
  if (!holds_header(bytes)) {  // killed while creating it: the run starts over
    truncate_to(fd, 0, path);
    j.append_line(canonicalize(header));
    return j;
  }
  std::istringstream in(bytes);
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
    if (lineno == 1) {
      check_header(*parsed, header, path);
    } else {
      try {
        units->push_back(unit_result_from_json(*parsed));
      } catch (const InputError& e) {
        throw InputError(path + ":" + std::to_string(lineno) + ": " + e.what());
      }
    }
    kept += line.size() + 1;
  }
  if (lineno == 1 && kept == 0) throw InputError(path + ":1: corrupt journal header");
  truncate_to(fd, kept, path);  // drop a torn tail before appending
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
