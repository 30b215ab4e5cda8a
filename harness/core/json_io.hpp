#pragma once
// Parsing JSON files with bounded nesting. nlohmann's parser is iterative, but copying,
// comparing, dumping and canonicalizing a value recurse once per level: a file nested 1e6
// deep would overflow the stack long after it parsed. A cheap pre-scan of the bytes
// (string-aware) refuses such input before json::parse sees it.
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/jcs.hpp"

namespace kgate {

inline constexpr int kMaxJsonDepth = 64;

// The deepest nesting of arrays and objects in bytes ('[' and '{' inside strings ignored;
// escapes skipped). Stops scanning once the depth exceeds stop_above and returns that depth.
int json_nesting_depth(std::string_view bytes, int stop_above = kMaxJsonDepth);

// Parses bytes, or returns nullopt and sets why to "nested deeper than 64 levels" or to
// nlohmann's (length-bounded) parse error.
std::optional<json> parse_json_checked(const std::string& bytes, std::string& why, int max_depth = kMaxJsonDepth);

// Parses bytes or throws InputError("<where>: JSON nested deeper than 64 levels") or
// InputError("<where>: malformed JSON (...)").
json parse_json_bounded(const std::string& bytes, const std::string& where, int max_depth = kMaxJsonDepth);

}  // namespace kgate
