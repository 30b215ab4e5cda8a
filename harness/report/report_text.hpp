#pragma once
// Number formats and escapes shared by the report printers (md, html, csv, compare).
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/text.hpp"

namespace kgate::report_text {

// Shortest text that reads back as the same double (std::to_chars): 0.232 prints as 0.232;
// fixed notation for everyday magnitudes (4000000, not 4e+06), scientific beyond them.
inline std::string shortest(double v) {
  char b[512];
  const double a = std::fabs(v);
  const bool fixed = a == 0 || (a >= 1e-5 && a < 1e16);
  auto r = fixed ? std::to_chars(b, b + sizeof b, v, std::chars_format::fixed) : std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}

inline std::string printf_num(const char* fmt, double v) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

// About four significant digits without an exponent for everyday magnitudes: 0.0123, 1.234,
// 12.34, 123.4, 1234, 12345.
inline std::string sig4(double v) {
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e7)) return printf_num("%.3e", v);
  return printf_num(a >= 1000 ? "%.0f" : a >= 100 ? "%.1f" : a >= 10 ? "%.2f" : a >= 1 ? "%.3f" : "%.4f", v);
}
inline std::string ratio3(double v) { return printf_num("%.3f", v); }
inline std::string pct1(double v) { return printf_num("%.1f%%", v); }
// Change as a signed percent: 1.0312 -> "+3.12%".
inline std::string change_pct(double v) { return printf_num("%+.2f%%", (v - 1) * 100); }

// "[lo, hi]" with three decimals. (Built by appending: GCC 12 warns, falsely, on "[" + temp.)
inline std::string interval3(double lo, double hi) {
  std::string o = "[";
  o += ratio3(lo);
  o += ", ";
  o += ratio3(hi);
  o += "]";
  return o;
}
// open + s + close, by appending (the same false warning otherwise).
inline std::string enclose(std::string_view open, const std::string& s, std::string_view close) {
  std::string o(open);
  o += s;
  o += close;
  return o;
}

template <class F>
std::string opt(const std::optional<double>& v, F f, const char* missing = "-") {
  return v ? f(*v) : std::string(missing);
}
inline std::string yes_no(const std::optional<bool>& b) { return b ? (*b ? "yes" : "no") : "-"; }

// Text in a markdown table cell: control characters escaped (printable), then what would end a
// cell or start markup made literal: | and ` escaped, ] escaped before ( (an inline link or
// image needs "]("; an interval "[0.98, 1.12]" stays as it reads), & as &amp;, and < as &lt;
// where it could open a tag or an autolink (before a letter, /, ! or ?), so "<= 1" stays readable.
inline std::string md(std::string_view s, size_t max = 4000) {
  const std::string p = printable(s, max);
  std::string o;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i], next = i + 1 < p.size() ? p[i + 1] : ' ';
    const bool tag = std::isalpha(static_cast<unsigned char>(next)) || next == '/' || next == '!' || next == '?';
    if (c == '|' || c == '`' || (c == ']' && next == '('))
      o += {'\\', c};
    else if (c == '&')
      o += "&amp;";
    else if (c == '<' && tag)
      o += "&lt;";
    else
      o += c;
  }
  return o;
}

// Text in HTML content or a double-quoted attribute value: html_raw keeps line breaks (for
// <pre>), html first escapes control characters (printable).
inline std::string html_raw(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}
inline std::string html(std::string_view s, size_t max = 4000) { return html_raw(printable(s, max)); }

// A CSV field: control characters escaped (printable: a line break reads \n, so every record
// is one line and a terminal shows the file as written), then quoted per RFC 4180 when it
// holds a comma or a quote.
inline std::string csv(std::string_view s, size_t max = 4000) {
  const std::string p = printable(s, max);
  if (p.find_first_of(",\"") == std::string::npos) return p;
  std::string o = "\"";
  for (char c : p) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

// The readable part of an activity name: a mangled C++ name's innermost identifier
// ("_ZN4sm906decode...39flash_fwd_splitkv_mla_fp8_sparse_kernelINS1_..." ->
// "flash_fwd_splitkv_mla_fp8_sparse_kernel"); other names as they are, cut at 60 characters.
inline std::string activity_label(const std::string& name) {
  size_t i = 0;
  if (name.rfind("_ZN", 0) == 0)
    i = 3;
  else if (name.rfind("_Z", 0) == 0)
    i = 2;
  std::string last;
  while (i > 0 && i < name.size()) {
    while (i < name.size() && (name[i] == 'K' || name[i] == 'V' || name[i] == 'L')) ++i;  // qualifiers
    size_t len = 0, j = i;
    while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])) && len <= name.size())
      len = len * 10 + static_cast<size_t>(name[j++] - '0');
    if (j == i || len == 0 || len > name.size() - j) break;
    last = name.substr(j, len);
    i = j + len;
    if (name.rfind("_ZN", 0) != 0) break;  // a plain _Z name has one identifier
  }
  if (!last.empty()) return last;
  return name.size() > 60 ? name.substr(0, 57) + "..." : name;
}

}  // namespace kgate::report_text
