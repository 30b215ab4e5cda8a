#pragma once
// The registry: families and their implementations. Plain data plus function pointers, so an
// external export (a kernel built outside kgate behind a C ABI) can be registered the same way.
#include <string>
#include <vector>

#include "harness/core/family.hpp"

namespace kgate {

struct Implementation {
  std::string name;    // stable, "<family>.<variant>"
  std::string family;
  std::string backend;  // "cpu" or "cuda"
  std::string role;     // "candidate", "baseline", "floor", "reference" (a hint for list)
  std::vector<std::string> archs;         // built for ("host", "sm_90a")
  std::vector<std::string> kernel_names;  // expected launches (parity, fallback gates)
  std::vector<std::string> sources;       // relative paths, hashed at build time
  std::string description;
  // nullptr-equivalent empty string when supported; else why not, as text.
  std::string (*supports)(const json& params) = nullptr;
  void* launch = nullptr;  // family-specific signature, cast by the family's context
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
  const std::vector<Implementation>& impls() const { return impls_; }

 private:
  std::vector<Family> families_;
  std::vector<Implementation> impls_;
};

// Registers every family built into this binary (schema, arms, CPU and GPU contexts), by
// calling each kernels/<family>/'s register_family_<family>(). Defined by the build
// (generated/families.cpp, library kgate_families), not by harness/core: the core names no
// family. The CLI and the test mains call it once, before the registry is first used.
void register_bundled_families(Registry& r);

}  // namespace kgate
