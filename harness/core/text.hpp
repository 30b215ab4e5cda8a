#pragma once
// User-supplied text (ids, keys, field and arm names, paths) in one-line error messages and on
// the terminal: control characters and invalid UTF-8 escaped, length bounded.
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>
#include <string_view>

namespace kgate {

namespace detail {

// The escaper behind printable and terminal: '\n' '\r' '\t' as \n \r \t; other C0 bytes, 0x7f,
// the C1 controls U+0080..U+009F (some terminals take U+009B as CSI) and bytes that are not part
// of well-formed UTF-8 as \xHH; '\\' as \\ when `backslash`, '\'' as \' when `quote`. At most
// `max` bytes of escaped text are kept; a cut adds "…(N bytes)", N being the length of s.
inline std::string escape(std::string_view s, size_t max, bool quote, bool backslash) {
  static const char* hex = "0123456789abcdef";
  auto hex_byte = [](unsigned char c) { return std::string{'\\', 'x', hex[c >> 4], hex[c & 15]}; };
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
    else if (c == '\\' && backslash)
      piece = "\\\\";
    else if (c == '\'' && quote)
      piece = "\\'";
    else if (c < 0x20 || c == 0x7f)
      piece = hex_byte(c);
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
      const bool c1_control = ok && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0;
      if (c1_control) {
        piece = hex_byte(c) + hex_byte(static_cast<unsigned char>(s[i + 1]));
        len = 2;
      } else if (ok) {
        piece = std::string(s.substr(i, n));
        len = n;
      } else {
        piece = hex_byte(c);
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

}  // namespace detail

// s with control characters and invalid UTF-8 escaped (detail::escape), and '\\' as \\ so the
// escapes are unambiguous; at most `max` bytes.
inline std::string printable(std::string_view s, size_t max = 200, bool escape_quote = false) {
  return detail::escape(s, max, escape_quote, true);
}

// Text bound for a terminal (list, the run's progress and summary lines, gate and audit lines,
// error messages): control characters and invalid UTF-8 escaped (detail::escape), so a case
// table's string cannot move the cursor, recolour, retitle or ring the terminal, nor break its
// line. Backslashes are kept: text escaped once already (a quoted() id in an error) reads the
// same, so every line may pass through it on its way out.
inline std::string terminal(std::string_view s, size_t max = 4000) { return detail::escape(s, max, false, false); }

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
