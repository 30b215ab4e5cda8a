#pragma once
// The printers of `kgate carryover` (the split itself: harness/core/carryover.hpp).
#include <string>

#include "harness/core/carryover.hpp"

namespace kgate {

std::string carryover_markdown(const CarryoverResult& c);
json carryover_json(const CarryoverResult& c);  // schema kgate.carryover/1

}  // namespace kgate
