#pragma once
// Pieces shared by the families' CPU contexts: host timing and state merging of checks.
#include <chrono>
#include <string>

#include "harness/run/campaign.hpp"

namespace kgate {

template <class F>
double host_time_us(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

// Merges the check of a second output tensor into the first; `what` names it in the note.
void merge_check(Correctness& into, const Correctness& other, const std::string& what);

}  // namespace kgate
