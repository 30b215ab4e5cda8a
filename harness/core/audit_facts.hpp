#pragma once
// The recorded facts of a receipt that kgate's own code fixes, re-derived and compared. A forger
// who edits a body and recomputes every digest (body, rows, sidecar, subjects) still has to keep
// these consistent with one another: the sidecar's group and block structure with the protocol,
// each correctness verdict with its counts and the row's disposition, run.units with the rows,
// the case table's digest with its subject, the subjects with the arms' sources, each row's
// family and pairs with the run's. What these cannot expose is listed in harness/core/AUDIT.md.
#include <functional>
#include <string>

#include "harness/core/jcs.hpp"

namespace kgate {

// body: a sealed receipt body (an in-toto Statement with kgate's predicate); samples: its
// sidecar when its digest and schema matched, else null. Each inconsistency is one call of
// `bad`, naming the field (and row).
void check_recorded_facts(const json& body, const json* samples, const std::function<void(const std::string&)>& bad);

}  // namespace kgate
