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
  static Registry& instance();  // populated once with every built family
  void add_family(Family f);
  void add(Implementation impl);
  const Family& family(const std::string& name) const;  // throws InputError
  const Family* find_family(const std::string& name) const;
  Family* find_family_mut(const std::string& name);
  const Implementation& impl(const std::string& name) const;  // throws InputError
  const std::vector<Family>& families() const { return families_; }
  const std::vector<Implementation>& impls() const { return impls_; }

 private:
  std::vector<Family> families_;
  std::vector<Implementation> impls_;
};

// Registration of every family and CPU arm (explicit: no static-init order games). The GPU
// library adds its arms and contexts through its own entry point (harness/gpu/gpu.hpp).
void register_cpu_families(Registry& r);
// Libraries linked into the binary (the GPU backend) add themselves here before the registry
// is first used (the CLI does so at the start of main).
std::vector<void (*)(Registry&)>& extension_hooks();

}  // namespace kgate
