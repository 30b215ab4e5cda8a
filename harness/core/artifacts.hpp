#pragma once
// Identity of what a result depends on: the kgate binary, kernel and reference sources
// (hashed at build time), case tables.
#include <string>
#include <vector>

namespace kgate {

struct SourceDigest {
  const char* path;    // relative to the source root
  const char* sha256;
};
const std::vector<SourceDigest>& built_source_digests();  // generated at build time
// The tree's git commit when this binary was built ("-dirty" appended when a tracked file
// differed from it; "unknown" outside a git tree). Generated on every build.
const char* built_git_commit();
// sha256 of a source as built; throws std::out_of_range for an unknown path.
std::string built_source_sha256(const std::string& relpath);

std::string self_binary_path();
std::string self_binary_sha256();

}  // namespace kgate
