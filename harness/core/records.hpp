#pragma once
// Typed records of a campaign. json lives only at the edges (journal, receipt, sidecar,
// reports); everything between the executor and the receipt writer passes these.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"

namespace kgate {

// One arm's output checked against the oracle.
struct Correctness {
  bool passed = false;
  double max_abs_err = 0;  // over finite elements
  double max_rel_err = 0;  // |out-ref| / max(|ref|, atol)
  std::string worst;       // coordinates of the worst element
  double worst_out = 0, worst_ref = 0;
  int64_t elements = 0, mismatches = 0, nonfinite = 0, unwritten = 0;
  std::string note;  // e.g. "pad slots: pool entries bit-identical"
  json to_json(const std::string& arm) const;
};

// Activity signature of one call: records / launches / distinct kernel names.
struct Signature {
  int64_t records = 0, launches = 0;      // activity records, launches per call
  std::vector<std::string> kernel_names;  // distinct, sorted
  bool operator==(const Signature&) const = default;
};

// One timed call of one arm, as a timer saw it.
struct Sample {
  double us = 0;                       // the timer's value for one call
  std::optional<Signature> signature;  // activity timers only
  double sm_clock_mhz = 0;             // 0 when unknown
  double events_us = 0;                // events timer alongside, when available (0 = none)
  double self_us = 0;                  // the kernel's own clock (calibration arms), 0 = none
};

}  // namespace kgate
