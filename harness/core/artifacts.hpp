#pragma once
// Identity of what a result depends on: the kgate binary, kernel and reference sources
// (hashed at build time), case tables.
#include <initializer_list>
#include <string>
#include <vector>

namespace kgate {

struct SourceDigest {
  const char* path;  // relative to the source root
  const char* sha256;
};
// Every file a built unit depends on and every protocol source; generated at build time
// (scripts/cmake/source_digests.cmake), sorted by path.
const std::vector<SourceDigest>& built_source_digests();

// A translation unit of a family (kgate_add_family, cmake/kgate_family.cmake) and the files
// inside the source tree its compiler read, by the compiler's dependency output at build time
// (the unit itself included; relative paths, sorted). family.cpp is never one.
struct BuiltUnit {
  const char* path;
  const char* family;
  const char* role;  // "arm" (kernels/<family>/), "oracle" or "gpu_oracle" (references/<family>/)
  std::vector<const char*> sources;
};
const std::vector<BuiltUnit>& built_units();  // generated at build time

// The protocol subject (KGATE_PROTOCOL_SOURCES* in CMakeLists.txt): files besides the arms'
// sources that decide a sample or a verdict; backend empty for every backend, "export" for the
// export ABI (an export arm's, not a backend's).
struct ProtocolSource {
  const char* path;
  const char* backend;
};
const std::vector<ProtocolSource>& built_protocol_sources();  // generated at build time
// The protocol sources a receipt of `backend` names, in the listed order.
std::vector<std::string> protocol_sources(const std::string& backend);

// The tree files an arm's result depends on: the dependencies of `units` (the translation units
// that implement it, as paths relative to the source root) and of its family's oracle (every
// "oracle" unit of the family; on backend "cuda" every "gpu_oracle" unit too), sorted, without
// duplicates. Throws std::invalid_argument for a unit this build did not compile for `family`.
std::vector<std::string> built_arm_sources(const std::string& family, const std::string& backend,
                                           std::initializer_list<const char*> units);
// Family::export_sources: built_arm_sources(family, backend, units) for the units of the context
// that calls export arms (the GPU context; a family running host exports, its CPU context), and
// the export ABI.
std::vector<std::string> built_export_sources(const std::string& family, std::initializer_list<const char*> units,
                                              const std::string& backend = "cuda");
// The tree's git commit when this binary was built ("-dirty" appended when a tracked file
// differed from it; "unknown" outside a git tree). Generated on every build.
const char* built_git_commit();
// sha256 of a source as built; throws std::out_of_range for an unknown path.
std::string built_source_sha256(const std::string& relpath);

std::string self_binary_path();
std::string self_binary_sha256();

}  // namespace kgate
