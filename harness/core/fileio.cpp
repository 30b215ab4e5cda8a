#include "harness/core/fileio.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "harness/core/errors.hpp"
#include "harness/core/text.hpp"

namespace kgate {

namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string errno_text(int e) { return std::string(" (") + std::strerror(e) + ")"; }

std::string bytes_text(size_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

void require_regular_fd(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw InputError(printable(path) + ": cannot stat" + errno_text(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(printable(path) + ": is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(printable(path) + ": not a regular file (a FIFO, device or socket); refusing to read it");
}

std::string read_file(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO that has no writer would otherwise wait for one forever.
  Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) throw InputError(printable(path) + ": cannot read" + errno_text(errno));
  require_regular_fd(f.fd, path);
  struct stat st {};
  if (::fstat(f.fd, &st) == 0 && static_cast<unsigned long long>(st.st_size) > max_bytes)
    throw InputError(printable(path) + ": " + bytes_text(static_cast<size_t>(st.st_size)) + ", more than the " +
                     bytes_text(max_bytes) + " kgate reads from one file");
  return read_fd_all(f.fd, max_bytes, path);
}

bool file_exists(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

void write_fd_all(int fd, const std::string& bytes, const std::string& path) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(path + ": write failed (" + std::strerror(errno) + ")");
    }
    off += static_cast<size_t>(n);
  }
}

std::string temporary_name(const std::string& path, int attempt) {
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(attempt);
}

void remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tmp.";
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    // PATH.tmp.<pid>.<n>: a temporary of a writer still running is its own, not stale.
    const std::string rest = name.substr(prefix.size());
    const size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos || rest.find_first_not_of("0123456789.") != std::string::npos) continue;
    const long pid = std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) ::unlink(e.path().c_str());
  }
}

namespace {

// A fresh temporary beside `path`, created exclusively and never through a link: a name already
// taken (a planted file or symlink, or another writer's) is skipped, not opened.
int create_temporary(const std::string& path, unsigned mode, std::string& tmp) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = temporary_name(path, attempt);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0) return fd;
    if (errno != EEXIST) throw InputError(printable(tmp) + ": cannot create" + errno_text(errno));
  }
  throw InputError(printable(path) + ": cannot create a temporary beside it (every name tried is taken)");
}

void check_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // rename() would replace a device node, FIFO or socket (--out /dev/null as root) with a
  // regular file, and fails on a directory only after the work is done.
  auto st = fs::symlink_status(path, ec);
  if (fs::is_symlink(st)) st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(printable(path) + ": exists and is not a regular file; not replacing it");
  auto parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec) && !fs::create_directories(parent, ec) && ec)
    throw InputError(printable(parent.string()) + ": cannot create directory (" + ec.message() + ")");
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& bytes, WriteOptions opt) {
  check_target(path);
  remove_stale_temporaries(path);
  std::string tmp;
  const int fd = create_temporary(path, opt.mode, tmp);
  try {
    write_fd_all(fd, bytes, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::fsync(fd);
  ::close(fd);
  if (!opt.replace) {
    // link() never replaces: the file appears whole under PATH, or PATH is left as it was.
    const int rc = ::link(tmp.c_str(), path.c_str());
    const int e = errno;
    ::unlink(tmp.c_str());
    if (rc == 0) return;
    if (e == EEXIST) throw InputError(printable(path) + ": exists; not replacing it");
    throw std::runtime_error(path + ": cannot create" + errno_text(e));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": rename failed" + errno_text(e));
  }
}

std::string read_fd_all(int fd, size_t max_bytes, const std::string& path) {
  std::string all;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (all.size() + static_cast<size_t>(n) > max_bytes)
      throw InputError(printable(path) + ": more than the " + bytes_text(max_bytes) + " kgate reads from one file");
    all.append(buf, static_cast<size_t>(n));
  }
  return all;
}

}  // namespace kgate
