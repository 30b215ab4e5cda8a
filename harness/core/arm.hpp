#pragma once
// One shape for every family's arms. A family states each arm once, in a table of ArmEntry
// (kernels/<family>/arms.hpp): its name, role and description, the typed arm its contexts call
// (a CpuArm, or a GpuArm of harness/gpu/arm.hpp), and supports(); add_arms registers a table. The
// registry keeps the typed arm in Implementation::arm (a std::any of `const Arm*`), and a context
// reads it back with arm_of<Arm>, which refuses an arm of another type instead of calling it.
#include <any>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/core/registry.hpp"

namespace kgate {

// A CPU arm: one call of the family's host signature `Fn` on the row context's host buffers. It
// launches no device kernel, so it declares none (parity and fallback judge device activity).
template <class Fn>
struct CpuArm {
  Fn* call = nullptr;
  std::span<const char* const> kernels{};
};

// One row of a family's arm table. `arm` points to an object of static storage (the table's
// arms outlive the registry).
template <class Arm>
struct ArmEntry {
  const char* name;  // stable, "<family>.<variant>"
  const char* role;  // "candidate", "baseline", "floor", "reference", "negative_control"
  const char* description;
  const Arm* arm;
  std::string (*supports)(const json& params) = nullptr;  // "" when supported, else why not
  // The architectures the arm is declared for, when fewer than its group's (an arm tuned for one).
  std::span<const char* const> archs{};
};

// An arm tuned for and measured on the H100/H200 alone (sm_90a instructions, or only its tuning).
inline constexpr const char* kSm90aOnly[] = {"sm_90a"};

// What the arms of one table share: their family, backend, architectures and sources.
struct ArmGroup {
  std::string family;
  std::string backend;  // "cpu" or "cuda"
  std::vector<std::string> archs;
  std::vector<std::string> sources;
};

// The arm `impl` was registered with, as the family's type `Arm`. Throws std::logic_error when it
// holds another type (an arm of another family or backend, or an export arm, which has none).
template <class Arm>
const Arm& arm_of(const Implementation& impl) {
  if (const auto* a = std::any_cast<const Arm*>(&impl.arm); a && *a) return **a;
  throw std::logic_error("arm '" + impl.name + "' of family '" + impl.family + "' (" + impl.backend +
                         ") is not an arm of the type this context runs");
}

// Registers every entry of `table` as an Implementation of `group`; an arm's kernel names are the
// ones its typed arm declares.
template <class Arm>
void add_arms(Registry& r, const ArmGroup& group, std::span<const ArmEntry<Arm>> table) {
  for (const ArmEntry<Arm>& e : table) {
    Implementation impl;
    impl.name = e.name;
    impl.family = group.family;
    impl.backend = group.backend;
    impl.role = e.role;
    impl.archs = e.archs.empty() ? group.archs : std::vector<std::string>(e.archs.begin(), e.archs.end());
    impl.kernel_names.assign(e.arm->kernels.begin(), e.arm->kernels.end());
    impl.sources = group.sources;
    impl.description = e.description;
    impl.supports = e.supports;
    impl.arm = e.arm;
    r.add(std::move(impl));
  }
}
template <class Arm, size_t N>
void add_arms(Registry& r, const ArmGroup& group, const ArmEntry<Arm> (&table)[N]) {
  add_arms(r, group, std::span<const ArmEntry<Arm>>(table));
}

}  // namespace kgate
