#include "harness/core/artifacts.hpp"

#include <unistd.h>

#include <stdexcept>

#include "harness/core/crypto.hpp"

namespace kgate {

std::string built_source_sha256(const std::string& relpath) {
  for (const auto& d : built_source_digests())
    if (relpath == d.path) return d.sha256;
  throw std::out_of_range("no built digest for source '" + relpath + "'");
}

std::string self_binary_path() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

std::string self_binary_sha256() {
  static const std::string digest = sha256_file_hex(self_binary_path());
  return digest;
}

}  // namespace kgate
