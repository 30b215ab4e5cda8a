#include "harness/report/report_doc.hpp"

#include <algorithm>

#include "harness/report/report_text.hpp"

namespace kgate::doc {
namespace {

std::string md_inline(const Inline& in) {
  std::string o;
  for (const Span& s : in) {
    switch (s.kind) {
      case Span::text:
        o += report_text::md(s.s);
        break;
      case Span::bold:
        o += report_text::enclose("**", report_text::md(s.s), "**");
        break;
      case Span::code: {
        // Inside a code span nothing is decoded: only the cell-ending pipe needs its escape
        // (GFM tables). Text holding a backtick is printed as plain text instead.
        const std::string p = printable(s.s, 400);
        if (p.find('`') != std::string::npos) {
          o += report_text::md(s.s);
          break;
        }
        o += "`";
        for (char c : p) o += c == '|' ? std::string("\\|") : std::string(1, c);
        o += "`";
        break;
      }
    }
  }
  return o;
}

std::string plain(const Inline& in) {
  std::string o;
  for (const Span& s : in) o += s.s;
  return o;
}

// A fence longer than any run of backticks in the text, so the text cannot close it.
std::string fence_for(const std::string& text) {
  size_t run = 0, longest = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

std::string html_inline(const Inline& in) {
  std::string o;
  for (const Span& s : in) {
    const std::string t = report_text::html(s.s);
    switch (s.kind) {
      case Span::text:
        o += t;
        break;
      case Span::bold:
        o += report_text::enclose("<b>", t, "</b>");
        break;
      case Span::code:
        o += report_text::enclose("<code>", t, "</code>");
        break;
    }
  }
  return o;
}

void md_block(const Block& b, std::string& o) {
  switch (b.kind) {
    case Block::heading:
      o += std::string(b.level, '#') + " " + md_inline(b.text) + "\n\n";
      break;
    case Block::para:
      o += md_inline(b.text) + "\n\n";
      break;
    case Block::list:
      for (const auto& it : b.items) o += report_text::enclose("- ", md_inline(it), "\n");
      o += "\n";
      break;
    case Block::table: {
      const Table& t = b.tab;
      o += "|";
      for (const auto& h : t.header) o += report_text::enclose(" ", report_text::md(h), " |");
      o += "\n|";
      for (size_t i = 0; i < t.header.size(); ++i) o += i < t.align.size() && t.align[i] == 'r' ? "---:|" : "---|";
      o += "\n";
      for (const auto& r : t.rows) {
        o += "|";
        for (const auto& c : r.cells) o += report_text::enclose(" ", md_inline(c), " |");
        o += "\n";
      }
      o += "\n";
      break;
    }
    case Block::details:
      o += "<details><summary>" + report_text::html(plain(b.text)) + "</summary>\n\n";
      for (const auto& c : b.children) md_block(c, o);
      o += "</details>\n\n";
      break;
    case Block::code: {
      const std::string f = fence_for(b.code_text);
      o += f + "\n" + b.code_text + (b.code_text.ends_with("\n") ? "" : "\n") + f + "\n\n";
      break;
    }
  }
}

void html_block(const Block& b, std::string& o) {
  switch (b.kind) {
    case Block::heading: {
      const std::string h = "h" + std::to_string(b.level);
      o += "<" + h + ">" + html_inline(b.text) + "</" + h + ">\n";
      break;
    }
    case Block::para:
      o += "<p>" + html_inline(b.text) + "</p>\n";
      break;
    case Block::list:
      o += "<ul>\n";
      for (const auto& it : b.items) o += "<li>" + html_inline(it) + "</li>\n";
      o += "</ul>\n";
      break;
    case Block::table: {
      const Table& t = b.tab;
      auto cls = [&](size_t i) { return i < t.align.size() && t.align[i] == 'r' ? std::string(" class=\"num\"") : ""; };
      o += "<table>\n<thead><tr>";
      for (size_t i = 0; i < t.header.size(); ++i) o += "<th" + cls(i) + ">" + report_text::html(t.header[i]) + "</th>";
      o += "</tr></thead>\n";
      bool open = false;
      std::string group;
      for (size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        if (!open || (!row.group.empty() && row.group != group)) {
          if (open) o += "</tbody>\n";
          o += row.group.empty() ? "<tbody>\n" : "<tbody id=\"" + report_text::html(row.group) + "\">\n";
          open = true;
          group = row.group;
        }
        o += "<tr>";
        for (size_t i = 0; i < row.cells.size(); ++i) o += "<td" + cls(i) + ">" + html_inline(row.cells[i]) + "</td>";
        o += "</tr>\n";
      }
      if (open) o += "</tbody>\n";
      o += "</table>\n";
      break;
    }
    case Block::details:
      o += "<details><summary>" + html_inline(b.text) + "</summary>\n";
      for (const auto& c : b.children) html_block(c, o);
      o += "</details>\n";
      break;
    case Block::code:
      o += "<pre>" + report_text::html_raw(b.code_text) + "</pre>\n";
      break;
  }
}

}  // namespace

std::string render_md(const std::vector<Block>& blocks) {
  std::string o;
  for (const auto& b : blocks) md_block(b, o);
  while (o.ends_with("\n\n")) o.pop_back();
  return o;
}

std::string render_html(const std::vector<Block>& blocks) {
  std::string o;
  for (const auto& b : blocks) html_block(b, o);
  return o;
}

}  // namespace kgate::doc
