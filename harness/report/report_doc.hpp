#pragma once
// A small document model (headings, paragraphs, lists, tables, <details>) so that one report
// is written once and rendered as markdown (pull requests) or HTML (the html report) with each
// format's escaping applied to every piece of recorded text.
#include <string>
#include <vector>

namespace kgate::doc {

struct Span {
  enum Kind { text, code, bold } kind = text;
  std::string s;
};
using Inline = std::vector<Span>;
inline Span T(std::string s) { return {Span::text, std::move(s)}; }
inline Span C(std::string s) { return {Span::code, std::move(s)}; }
inline Span B(std::string s) { return {Span::bold, std::move(s)}; }

struct Table {
  std::vector<std::string> header;
  std::string align;  // 'l' or 'r' per column
  struct Row {
    std::vector<Inline> cells;
    std::string group;  // html: consecutive rows of one group share a <tbody id="<group>">
  };
  std::vector<Row> rows;
};

struct Block {
  enum Kind { heading, para, list, table, details, code } kind = para;
  int level = 2;                // heading
  Inline text;                  // heading, para; details: the summary
  std::vector<Inline> items;    // list
  Table tab;                    // table
  std::vector<Block> children;  // details
  std::string code_text;        // code
};
inline Block heading(int level, Inline t) { return {Block::heading, level, std::move(t), {}, {}, {}, {}}; }
inline Block para(Inline t) { return {Block::para, 0, std::move(t), {}, {}, {}, {}}; }
inline Block list(std::vector<Inline> items) { return {Block::list, 0, {}, std::move(items), {}, {}, {}}; }
inline Block table(Table t) { return {Block::table, 0, {}, {}, std::move(t), {}, {}}; }
inline Block details(Inline summary, std::vector<Block> children) {
  return {Block::details, 0, std::move(summary), {}, {}, std::move(children), {}};
}
inline Block code(std::string text) { return {Block::code, 0, {}, {}, {}, {}, std::move(text)}; }

std::string render_md(const std::vector<Block>& blocks);
std::string render_html(const std::vector<Block>& blocks);

}  // namespace kgate::doc
