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

// The host's measured peaks, as environment.peaks records them: {copy_bytes_per_s (a 256 MiB
// memcpy, best of 5, 2x bytes / time), gemm_bf16_flops_per_s (null), copy_method, gemm_method}.
// Measured once per process, on first use.
json cpu_peaks();

// Merges the check of a second output tensor into the first; `what` names it in the note.
void merge_check(Correctness& into, const Correctness& other, const std::string& what);

}  // namespace kgate
