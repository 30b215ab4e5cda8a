#include "harness/core/artifacts.hpp"

#include <unistd.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "harness/core/crypto.hpp"

namespace kgate {

std::string built_source_sha256(const std::string& relpath) {
  for (const auto& d : built_source_digests())
    if (relpath == d.path) return d.sha256;
  throw std::out_of_range("no built digest for source '" + relpath + "'");
}

std::vector<std::string> protocol_sources(const std::string& backend) {
  std::vector<std::string> v;
  for (const auto& p : built_protocol_sources())
    if (std::string(p.backend).empty() || backend == p.backend) v.push_back(p.path);
  return v;
}

std::vector<std::string> built_arm_sources(const std::string& family, const std::string& backend,
                                           std::initializer_list<const char*> units) {
  std::set<std::string> out;
  auto add = [&](const BuiltUnit& u) { out.insert(u.sources.begin(), u.sources.end()); };
  for (const char* name : units) {
    const BuiltUnit* found = nullptr;
    for (const auto& u : built_units())
      if (name == std::string(u.path) && family == u.family && std::string(u.role) == "arm") found = &u;
    if (!found)
      throw std::invalid_argument("family " + family + ": '" + name + "' is not a unit this build compiled for it " +
                                  "(kernels/" + family + "/CMakeLists.txt lists the units; family.cpp is none)");
    add(*found);
  }
  for (const auto& u : built_units()) {
    const std::string role = u.role;
    if (family == u.family && (role == "oracle" || (role == "gpu_oracle" && backend == "cuda"))) add(u);
  }
  return {out.begin(), out.end()};
}

std::vector<std::string> built_export_sources(const std::string& family, std::initializer_list<const char*> units,
                                              const std::string& backend) {
  std::vector<std::string> v = built_arm_sources(family, backend, units);
  for (const auto& p : built_protocol_sources())
    if (std::string(p.backend) == "export") v.push_back(p.path);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
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
