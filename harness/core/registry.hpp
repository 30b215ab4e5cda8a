#pragma once
// The registry: families and their implementations. Plain data plus a typed arm, so an external
// export (a kernel built outside kgate behind a C ABI) can be registered the same way.
#include <any>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/family.hpp"

struct kgate_export_arm;  // harness/export/kgate_export.h

namespace kgate {

// The file an export arm was loaded from, hashed when it was loaded (a receipt subject). A
// receipt names it by its portable identity (file name, sha256, manifest), never by `path`.
struct ExportLibrary {
  std::string path;  // as given in export:PATH:NAME: where this process loaded it from
  std::string sha256;
  uint64_t size = 0;
  std::string arm;       // NAME
  std::string file;      // the file name of `path` (the arm's portable name: export:<file>:<NAME>)
  std::string manifest;  // the build manifest's name ("peer" or "family"), "" when none beside the library
};

struct Implementation {
  std::string name;  // stable, "<family>.<variant>"
  std::string family;
  std::string backend;                    // "cpu" or "cuda"
  std::string role;                       // "candidate", "baseline", "floor", "reference" (a hint for list)
  std::vector<std::string> archs;         // built for ("host", "sm_90a")
  std::vector<std::string> kernel_names;  // expected launches (parity, fallback gates)
  std::vector<std::string> sources;       // relative paths, hashed at build time
  std::string description;
  // nullptr-equivalent empty string when supported; else why not, as text.
  std::string (*supports)(const json& params) = nullptr;
  // The family's typed arm (a `const CpuArm<...>*` or `const GpuArm<...>*`, harness/core/arm.hpp),
  // read back only through arm_of<Arm>, which checks the type; empty for an export arm.
  std::any arm;
  // Set for an export arm (harness/export/loader.hpp), arm and supports then unused: the
  // family's context calls export_supports / export_launch with its C args struct instead.
  const kgate_export_arm* exported = nullptr;
  std::optional<ExportLibrary> library = std::nullopt;
};

class Registry {
 public:
  // The process's registry; empty until an installer fills it (register_bundled_families).
  static Registry& instance();
  void add_family(Family f);
  void add(Implementation impl);
  const Family& family(const std::string& name) const;  // throws InputError (with suggestions)
  const Family* find_family(const std::string& name) const;
  // Throws InputError naming the nearest registered names ("did you mean ...?").
  const Implementation& impl(const std::string& name) const;
  const Implementation* find_impl(const std::string& name) const;
  std::vector<std::string> impl_names() const;
  const std::vector<Family>& families() const { return families_; }
  // A deque: an Implementation's address is stable while arms are added (plans hold pointers;
  // export arms are registered as runs name them).
  const std::deque<Implementation>& impls() const { return impls_; }

 private:
  std::vector<Family> families_;
  std::deque<Implementation> impls_;
};

// Registers every family built into this binary (schema, arms, CPU and GPU contexts), by
// calling each kernels/<family>/'s register_family_<family>(). Defined by the build
// (generated/families.cpp, library kgate_families), not by harness/core: the core names no
// family. The CLI and the test mains call it once, before the registry is first used.
void register_bundled_families(Registry& r);

}  // namespace kgate
