#pragma once
#include <string>

namespace kgate {

std::string read_file(const std::string& path);  // throws InputError naming the path
// Write to PATH.tmp.<pid>, fsync, rename over PATH: readers see the old or the new file whole.
// Throws InputError when PATH exists and is not a regular file (a directory, /dev/null) or
// its directory cannot be created.
void write_file_atomic(const std::string& path, const std::string& bytes);
// Append one line and fsync (journal).
void append_line_durable(const std::string& path, const std::string& line);
bool file_exists(const std::string& path);

}  // namespace kgate
