#include "harness/core/registry.hpp"

#include "harness/core/errors.hpp"

namespace kgate {

Registry& Registry::instance() {
  static Registry r;
  return r;
}

void Registry::add_family(Family f) { families_.push_back(std::move(f)); }
void Registry::add(Implementation impl) { impls_.push_back(std::move(impl)); }

const Family* Registry::find_family(const std::string& name) const {
  for (const auto& f : families_)
    if (f.name == name) return &f;
  return nullptr;
}

const Family& Registry::family(const std::string& name) const {
  if (auto* f = find_family(name)) return *f;
  throw InputError("unknown family '" + name + "' (kgate list shows them)");
}

const Implementation& Registry::impl(const std::string& name) const {
  for (const auto& i : impls_)
    if (i.name == name) return i;
  throw InputError("unknown implementation '" + name + "' (kgate list shows them)");
}

}  // namespace kgate
