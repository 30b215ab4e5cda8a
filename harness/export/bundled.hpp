#pragma once
// What a bundled family needs to be built as an export library (`kgate export`): the C entry
// points of harness/export/kgate_export.h wrapped around its C++ launchers. Header-only, and
// with harness/core/text.hpp's inline helpers, what an export library compiles besides the
// family's own headers: it links no kgate_core.
//
// A family's export source (kernels/<family>/export.cpp) lists every arm it can export, and its
// kgate_export_table returns table_of(family, arms, n); the build picks which of them the table
// carries with KGATE_EXPORT_ARMS ("ssu.fast,ssu.baseline": the cmake cache variable of the same
// name, set by `kgate export --arms`).
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "harness/core/text.hpp"  // split_commas (inline: no kgate_core)
#include "harness/export/kgate_export.h"

#ifndef KGATE_EXPORT_ARMS
#define KGATE_EXPORT_ARMS ""  // every arm the family's export source lists
#endif

namespace kgate::bundled {

// Runs f; an exception becomes return code 1 and its message in msg (the ABI carries no C++
// exception across the boundary).
template <class F>
int guarded(char* msg, size_t msg_len, F&& f) noexcept {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    if (msg && msg_len) std::snprintf(msg, msg_len, "%s", e.what());
  } catch (...) {
    if (msg && msg_len) std::snprintf(msg, msg_len, "unknown exception");
  }
  return 1;
}

// The arms of `all` named in `selected` (comma-separated, in that order; empty = all). A name
// not in `all` leaves the table empty, which kgate's loader refuses by the library's name.
inline std::vector<kgate_export_arm_t> select(const kgate_export_arm_t* all, size_t n, const std::string& selected) {
  if (selected.empty()) return std::vector<kgate_export_arm_t>(all, all + n);
  std::vector<kgate_export_arm_t> out;
  for (const std::string& name : split_commas(selected)) {
    const kgate_export_arm_t* a =
        std::find_if(all, all + n, [&](const kgate_export_arm_t& x) { return name == x.name; });
    if (a == all + n) return {};
    out.push_back(*a);
  }
  return out;
}

// The library's table: the arms of `all` that KGATE_EXPORT_ARMS names, for `family`. Its
// kgate_export_table returns this.
inline const kgate_export_table_t* table_of(const char* family, const kgate_export_arm_t* all, size_t n) {
  static const std::vector<kgate_export_arm_t> chosen = select(all, n, KGATE_EXPORT_ARMS);
  static const kgate_export_table_t table = {KGATE_EXPORT_ABI_VERSION, family, chosen.data(), chosen.size()};
  return &table;
}

}  // namespace kgate::bundled
