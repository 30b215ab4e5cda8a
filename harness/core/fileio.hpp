#pragma once
#include <cstddef>
#include <string>

namespace kgate {

// The most kgate reads from one file: far past any receipt, sidecar, table or library it makes,
// and short of what a machine can hold twice (the bytes, then their parse).
inline constexpr size_t kMaxReadBytes = size_t(1) << 30;

// The bytes of a regular file of at most max_bytes, or InputError naming the path. A FIFO,
// device, socket or directory is refused before a byte is read (opened non-blocking: a FIFO
// with no writer cannot hang the open), as are a symlink loop and a larger file.
std::string read_file(const std::string& path, size_t max_bytes = kMaxReadBytes);

struct WriteOptions {
  unsigned mode = 0644;  // the new file's mode (the umask applies)
  bool replace = true;   // false: an existing PATH is an InputError, never replaced
};
// Write to a fresh temporary beside PATH (created O_EXCL|O_NOFOLLOW: a planted file or link at
// its name is never written through), fsync, then rename over PATH (or link to it, without
// replace): readers see the old or the new file whole, and a kill leaves at most the temporary,
// which the next write of PATH removes. Throws InputError when PATH exists and is not a regular
// file (a directory, /dev/null) or its directory cannot be created.
void write_file_atomic(const std::string& path, const std::string& bytes, WriteOptions opt = {});
// The attempt-th name write_file_atomic tries for PATH's temporary: PATH.tmp.<pid>.<attempt>.
std::string temporary_name(const std::string& path, int attempt);
// The temporaries a killed writer of PATH left (PATH.tmp.<pid>.<n> of a process that is gone),
// removed.
void remove_stale_temporaries(const std::string& path);
// All of `bytes` to the descriptor (retrying short writes; `path` names it in the error), and
// everything the descriptor has left to read (at most max_bytes, else InputError naming path).
void write_fd_all(int fd, const std::string& bytes, const std::string& path);
std::string read_fd_all(int fd, size_t max_bytes = kMaxReadBytes, const std::string& path = "");
// The open descriptor is a regular file, else InputError naming path (fd stays open).
void require_regular_fd(int fd, const std::string& path);
bool file_exists(const std::string& path);

}  // namespace kgate
