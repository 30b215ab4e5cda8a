#pragma once
#include <string>

namespace kgate {

std::string read_file(const std::string& path);  // throws InputError naming the path
// Write to PATH.tmp.<pid>, fsync, rename over PATH: readers see the old or the new file whole.
// Throws InputError when PATH exists and is not a regular file (a directory, /dev/null) or
// its directory cannot be created.
void write_file_atomic(const std::string& path, const std::string& bytes);
// All of `bytes` to the descriptor (retrying short writes; `path` names it in the error), and
// everything the descriptor has left to read.
void write_fd_all(int fd, const std::string& bytes, const std::string& path);
std::string read_fd_all(int fd);
bool file_exists(const std::string& path);

}  // namespace kgate
