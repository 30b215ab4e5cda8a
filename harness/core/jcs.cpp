#include "harness/core/jcs.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace kgate {

std::string jcs_number(double v) {
  if (!std::isfinite(v)) throw std::invalid_argument("JCS: NaN or Infinity is not valid JSON");
  if (v == 0) return "0";  // covers -0 as well
  std::string out;
  if (v < 0) {
    out = "-";
    v = -v;
  }
  // Shortest round-trip digits (same choice as ECMAScript: closest, fewest digits).
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  auto epos = sci.find('e');
  std::string digits;
  for (size_t i = 0; i < epos; ++i)
    if (sci[i] != '.') digits += sci[i];
  int e = std::stoi(sci.substr(epos + 1));
  int k = static_cast<int>(digits.size());
  int n = e + 1;  // value = 0.digits * 10^n
  if (k <= n && n <= 21) {
    out += digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(-n, '0') + digits;
  } else {
    int x = n - 1;
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += "e";
    out += (x < 0 ? "-" : "+");
    out += std::to_string(std::abs(x));
  }
  return out;
}

std::string jcs_string(const std::string& s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

static std::vector<uint16_t> to_utf16(const std::string& s) {
  std::vector<uint16_t> out;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = s[i];
    uint32_t cp;
    int len;
    if (c < 0x80) {
      cp = c;
      len = 1;
    } else if ((c >> 5) == 6) {
      cp = c & 0x1f;
      len = 2;
    } else if ((c >> 4) == 14) {
      cp = c & 0x0f;
      len = 3;
    } else {
      cp = c & 0x07;
      len = 4;
    }
    for (int j = 1; j < len && i + j < s.size(); ++j) cp = (cp << 6) | (s[i + j] & 0x3f);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<uint16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<uint16_t>(0xDC00 + (cp & 0x3ff)));
    } else {
      out.push_back(static_cast<uint16_t>(cp));
    }
  }
  return out;
}

bool utf16_less(const std::string& a, const std::string& b) {
  auto ua = to_utf16(a), ub = to_utf16(b);
  return std::lexicographical_compare(ua.begin(), ua.end(), ub.begin(), ub.end());
}

// Nesting beyond this is refused rather than recursed into (json_io.hpp bounds parsed input to
// the same depth): no input can overflow the stack here.
static constexpr int kMaxCanonicalDepth = 64;

static void emit(const json& v, std::string& out, int depth) {
  if ((v.is_array() || v.is_object()) && depth >= kMaxCanonicalDepth)
    throw std::invalid_argument("JCS: nested deeper than " + std::to_string(kMaxCanonicalDepth) + " levels");
  switch (v.type()) {
    case json::value_t::null:
      out += "null";
      break;
    case json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      break;
    case json::value_t::number_integer:
      out += jcs_number(static_cast<double>(v.get<int64_t>()));
      break;
    case json::value_t::number_unsigned:
      out += jcs_number(static_cast<double>(v.get<uint64_t>()));
      break;
    case json::value_t::number_float:
      out += jcs_number(v.get<double>());
      break;
    case json::value_t::string:
      out += jcs_string(v.get_ref<const std::string&>());
      break;
    case json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ',';
        first = false;
        emit(e, out, depth + 1);
      }
      out += ']';
      break;
    }
    case json::value_t::object: {
      std::vector<const std::string*> keys;
      for (auto it = v.begin(); it != v.end(); ++it) keys.push_back(&it.key());
      std::sort(keys.begin(), keys.end(),
                [](const std::string* a, const std::string* b) { return utf16_less(*a, *b); });
      out += '{';
      bool first = true;
      for (const auto* k : keys) {
        if (!first) out += ',';
        first = false;
        out += jcs_string(*k);
        out += ':';
        emit(v.at(*k), out, depth + 1);
      }
      out += '}';
      break;
    }
    default:
      throw std::invalid_argument("JCS: binary or discarded JSON value");
  }
}

std::string canonicalize(const json& value) {
  std::string out;
  emit(value, out, 0);
  return out;
}

}  // namespace kgate
