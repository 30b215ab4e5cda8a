#include "harness/core/fileio.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/core/errors.hpp"
#include "harness/core/text.hpp"

namespace kgate {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(printable(path) + ": cannot read (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool file_exists(const std::string& path) { return std::filesystem::exists(path); }

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

void write_file_atomic(const std::string& path, const std::string& bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // rename() would replace a device node, FIFO or socket (--out /dev/null as root) with a
  // regular file, and fails on a directory only after the work is done.
  auto st = fs::status(path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    throw InputError(printable(path) + ": exists and is not a regular file; not replacing it");
  auto parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent) && !fs::create_directories(parent, ec) && ec)
    throw InputError(printable(parent.string()) + ": cannot create directory (" + ec.message() + ")");
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw InputError(tmp + ": cannot create (" + std::strerror(errno) + ")");
  try {
    write_fd_all(fd, bytes, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::fsync(fd);
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": rename failed (" + std::strerror(errno) + ")");
  }
}

std::string read_fd_all(int fd) {
  std::string all;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    all.append(buf, static_cast<size_t>(n));
  }
  return all;
}

}  // namespace kgate
