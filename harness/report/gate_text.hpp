#pragma once
// The one wording of a gate result. `kgate gate`, `kgate report` (md, html, json) and
// `kgate compare` print a failed gate through gate_text, so the same failure reads the same
// everywhere; the facts come typed from the gate table (harness/core/gates.hpp).
#include <string>

#include "harness/core/gates.hpp"
#include "harness/core/jcs.hpp"

namespace kgate {

// One line of text as recorded (each printer escapes it for its medium): "strict vs ssu.baseline: ratio interval lower
// bound 0.9800 is not > 1 (ratio 1.050, 99% interval [0.9800, 1.120]; candidate 8.000 us, baseline 8.400 us)".
std::string gate_text(const GateResult& r);
// The result's facts as JSON, with its text: gate, label (as verdicts.failed names it), baseline, judged, passed,
// measure, relation, value, threshold, ratio, ratio_ci, text.
json gate_json(const GateResult& r);

}  // namespace kgate
