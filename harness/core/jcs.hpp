#pragma once
// RFC 8785 JSON Canonicalization Scheme: numbers as ECMAScript Number.prototype.toString,
// object keys sorted by UTF-16 code units, minimal string escaping, no whitespace.
#include <nlohmann/json.hpp>
#include <string>

namespace kgate {

using json = nlohmann::json;

// Throws std::invalid_argument for NaN or infinity (not representable in I-JSON).
std::string jcs_number(double v);
std::string jcs_string(const std::string& utf8);
// Throws std::invalid_argument for values nested deeper than 64 arrays/objects.
std::string canonicalize(const json& value);

// True when a < b comparing the UTF-16 code units of two UTF-8 strings.
bool utf16_less(const std::string& a, const std::string& b);

}  // namespace kgate
