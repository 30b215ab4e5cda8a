#pragma once
// calib: the row descriptor and the pure rule that turns microseconds into spin cycles.
#include <cstdint>
#include <string>

#include "harness/core/family.hpp"
#include "harness/core/jcs.hpp"
#include "kernels/calib/abi.h"

namespace kgate::calib {

struct Problem {
  std::string kind;  // "spin" | "overlap" | "copy"
  int64_t us = 0, overlap_pct = 0, bytes = 0;

  static Problem from_json(const json& p) {
    return {p.at("kind").get<std::string>(), p.at("us").get<int64_t>(), p.at("overlap_pct").get<int64_t>(),
            p.at("bytes").get<int64_t>()};
  }
  int abi_kind() const { return kind == "spin" ? CALIB_SPIN : kind == "overlap" ? CALIB_OVERLAP : CALIB_COPY; }
  json to_json() const { return {{"kind", kind}, {"us", us}, {"overlap_pct", overlap_pct}, {"bytes", bytes}}; }
};

// The work model (Family::work). spin and overlap: 0 bytes, 0 FLOPs (a spin loop touches no
// memory and its arithmetic is not work; a zero model rather than none, so every calib row
// carries one). copy: `bytes` read + `bytes` written = 2 * bytes, 0 FLOPs (the same convention
// as environment.peaks.copy_bytes_per_s, so a copy row's TB/s reads against the copy peak).
inline Work work(const Problem& p) { return p.kind == "copy" ? Work{2.0 * static_cast<double>(p.bytes), 0} : Work{}; }

// Cycles of `us` microseconds at the SM clock measured at start-up (cycles per microsecond).
inline long long spin_cycles(double us, double clock_mhz) { return static_cast<long long>(us * clock_mhz); }
// overlap: the second stream's lead-in, (1 - overlap_pct / 100) T.
inline long long delay_cycles(const Problem& p, double clock_mhz) {
  return spin_cycles(static_cast<double>(p.us) * (100 - p.overlap_pct) / 100.0, clock_mhz);
}

// The row tolerance (Family::tolerance): calib's arms are checked by their own clocks, not by
// an output comparison.
inline Tolerance tolerance(const json&) { return Tolerance{0, 0}; }

// calib.spin_longer's supports(): spin rows of >= 5 us only.
inline std::string spin_longer_supports(const json& p) {
  if (p.value("kind", "") != "spin") return "spin rows only (a 2 % longer copy or overlap is not defined)";
  if (p.value("us", 0) < 5) return "spins of >= 5 us only (2 % of a shorter spin is below the timer's step)";
  return "";
}
}  // namespace kgate::calib
