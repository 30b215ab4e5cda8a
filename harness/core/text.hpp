#pragma once
// User-supplied text (ids, keys, field and arm names, paths) in one-line error messages:
// control characters and invalid UTF-8 escaped, length bounded.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>
#include <string_view>

namespace kgate {

// s with '\n' '\r' '\t' as \n \r \t, other bytes < 0x20, 0x7f and bytes that are not part of
// well-formed UTF-8 as \xHH, and '\\' as \\ (so the escapes are unambiguous). At most `max`
// bytes of escaped text are kept; a cut adds "…(N bytes)", N being the length of s.
inline std::string printable(std::string_view s, size_t max = 200, bool escape_quote = false) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    std::string piece;
    size_t len = 1;
    if (c == '\n')
      piece = "\\n";
    else if (c == '\r')
      piece = "\\r";
    else if (c == '\t')
      piece = "\\t";
    else if (c == '\\')
      piece = "\\\\";
    else if (c == '\'' && escape_quote)
      piece = "\\'";
    else if (c < 0x20 || c == 0x7f)
      piece = {'\\', 'x', hex[c >> 4], hex[c & 15]};
    else if (c < 0x80)
      piece = std::string(1, static_cast<char>(c));
    else {
      // Well-formed UTF-8 (RFC 3629): no overlongs, no surrogates, nothing above U+10FFFF.
      size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
      bool ok = n && i + n <= s.size();
      for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
      if (ok && n >= 3) {
        const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
        if (c == 0xe0 && c1 < 0xa0) ok = false;   // overlong
        if (c == 0xed && c1 >= 0xa0) ok = false;  // surrogate
        if (c == 0xf0 && c1 < 0x90) ok = false;   // overlong
        if (c == 0xf4 && c1 >= 0x90) ok = false;  // above U+10FFFF
      }
      if (ok) {
        piece = std::string(s.substr(i, n));
        len = n;
      } else {
        piece = {'\\', 'x', hex[c >> 4], hex[c & 15]};
      }
    }
    if (out.size() + piece.size() > max) {
      out += "\u2026(" + std::to_string(s.size()) + " bytes)";
      return out;
    }
    out += piece;
    i += len;
  }
  return out;
}

// printable(s) in single quotes (a quote inside is escaped): 'row-1', 'a\nb', 'xxxx…(5000000 bytes)'.
// A function object, not a function: argument-dependent lookup would otherwise prefer
// std::quoted (<iomanip>) for a std::string argument.
struct Quoted {
  std::string operator()(std::string_view s, size_t max = 120) const { return "'" + printable(s, max, true) + "'"; }
};
inline constexpr Quoted quoted{};

// The non-empty pieces of s between commas: split_commas("a,,b,") == {"a", "b"}.
inline std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t c = std::min(s.find(',', at), s.size());
    if (c > at) out.emplace_back(s.substr(at, c - at));
    at = c + 1;
  }
  return out;
}

// The strings of v separated by sep: join({"a", "b"}, ", ") == "a, b".
inline std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

}  // namespace kgate
