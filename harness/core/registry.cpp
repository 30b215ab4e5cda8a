#include "harness/core/registry.hpp"

#include "harness/core/errors.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"

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
  std::vector<std::string> names;
  for (const auto& f : families_) names.push_back(f.name);
  throw InputError("unknown family " + quoted(name) + did_you_mean(name, names) + " (kgate list shows them)");
}

const Implementation& Registry::impl(const std::string& name) const {
  if (auto* i = find_impl(name)) return *i;
  throw InputError("unknown implementation " + quoted(name) + did_you_mean(name, impl_names()) +
                   " (kgate list shows them)");
}

const Implementation* Registry::find_impl(const std::string& name) const {
  for (const auto& i : impls_)
    if (i.name == name) return &i;
  return nullptr;
}

std::vector<std::string> Registry::impl_names() const {
  std::vector<std::string> names;
  for (const auto& i : impls_) names.push_back(i.name);
  return names;
}

}  // namespace kgate
