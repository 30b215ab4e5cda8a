#include "harness/report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/report/gate_text.hpp"
#include "harness/report/report_doc.hpp"
#include "harness/report/report_text.hpp"
#include "harness/core/text.hpp"

namespace kgate {
namespace {

namespace rt = report_text;
using doc::B;
using doc::C;
using doc::Inline;
using doc::T;

std::string class_rules(const CompareRule& r) {
  const std::string up = rt::shortest(1 + r.threshold), down = rt::shortest(1 - r.threshold),
                    m = rt::shortest(1 + r.margin);
  return "FASTER: interval lower bound > 1 and change >= " + up + "; SLOWER: upper bound < 1 and change <= " + down +
         "; SAME: equivalent within the margin " + rt::shortest(r.margin) +
         " by two one-sided tests at 5% each (the change's " + rt::shortest(CompareRule::kEquivalenceLevel * 100) +
         "% interval lies within [1/" + m + ", " + m +
         "]); UNRESOLVED: anything else; UNMEASURED: a side has no ratio.";
}

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json geomean_json(const GeomeanChange& g) { return {{"pairs", g.pairs}, {"geomean_change", g.geomean}}; }

}  // namespace

CompareResult compare_receipts(const ReportView& old_v, const ReportView& new_v, const CompareRule& rule) {
  auto records = [](const ReportView& v) {
    std::vector<RowRecord> rows;
    for (const auto& rv : v.rows) rows.push_back(rv.record);
    return rows;
  };
  return compare_receipts(old_v, records(old_v), new_v, records(new_v), rule);
}

namespace {

// The title, what the file derives from, the rules, the class counts and both sides' facts.
void header_blocks(const CompareResult& c, std::vector<doc::Block>& d) {
  const CompareSide &o = c.old_side, &n = c.new_side;
  Inline title = {T("kgate compare: "),
                  C(n.candidate),
                  T(", table "),
                  C(n.table),
                  T(", "),
                  C(o.git_commit.substr(0, 12)),
                  T(" -> "),
                  C(n.git_commit.substr(0, 12))};
  d.push_back(doc::heading(2, title));
  d.push_back(doc::para({T("Derived file: made by "), C("kgate compare"), T(" from "), C(o.source), T(" (body sha256 "),
                         C(o.body_sha256), T(") and "), C(n.source), T(" (body sha256 "), C(n.body_sha256), T(").")}));
  d.push_back(doc::para(
      {B("change = new ratio / old ratio, where ratio = baseline median / candidate median (> 1 = candidate faster): a "
         "change > 1 means the candidate gained on its baseline."),
       T(" Change interval (" + rt::shortest(c.level * 100) +
         "%): the two recorded ratio intervals combined in log space (lower and upper sides separately, each "
         "half-width read as a normal quantile at its level) with the run-to-run noise " +
         rt::shortest(c.rule.run_noise) +
         " (a log-space standard deviation two runs of one build differ by beyond their intervals), in quadrature. "
         "Classes, threshold " +
         rt::shortest(c.rule.threshold) + ", margin " + rt::shortest(c.rule.margin) + ": " + class_rules(c.rule))}));
  std::string counts;
  for (const char* k : {"SLOWER", "FASTER", "SAME", "UNRESOLVED", "UNMEASURED"}) {
    auto it = c.classes.find(k);
    if (it != c.classes.end()) counts += (counts.empty() ? "" : ", ") + std::to_string(it->second) + " " + k;
  }
  d.push_back(doc::para({B("Result: " + counts + " (of " + std::to_string(c.pairs.size()) + " matched pairs)"),
                         T("; " + std::to_string(c.only_old.size()) + " only in old, " +
                           std::to_string(c.only_new.size()) + " only in new.")}));
  doc::Table sides{{"", "old", "new"}, "lll", {}};
  sides.rows.push_back({{{T("receipt")}, {C(o.source)}, {C(n.source)}}, ""});
  sides.rows.push_back({{{T("commit")}, {C(o.git_commit)}, {C(n.git_commit)}}, ""});
  sides.rows.push_back({{{T("table")},
                         {T(o.table + " (sha256 " + o.cases_sha256.substr(0, 12) + ")")},
                         {T(n.table + " (sha256 " + n.cases_sha256.substr(0, 12) + ")")}},
                        ""});
  sides.rows.push_back({{{T("device")}, {T(o.device)}, {T(n.device)}}, ""});
  sides.rows.push_back({{{T("candidate")}, {C(o.candidate)}, {C(n.candidate)}}, ""});
  sides.rows.push_back({{{T("baselines")}, {T(join(o.baselines, ", "))}, {T(join(n.baselines, ", "))}}, ""});
  d.push_back(doc::table(std::move(sides)));
}

void geomean_blocks(const CompareResult& c, std::vector<doc::Block>& d) {
  doc::Table geo{{"vs baseline", "pairs with a change", "geomean change"}, "lrr", {}};
  for (const auto& [b, g] : c.by_baseline)
    geo.rows.push_back(
        {{{C(b)}, {T(std::to_string(g.pairs))}, {B(rt::ratio3(g.geomean) + " (" + rt::change_pct(g.geomean) + ")")}},
         ""});
  d.push_back(doc::heading(3, {T("Geomean change")}));
  d.push_back(doc::table(std::move(geo)));
  if (c.by_tag.empty()) return;
  doc::Table tags{{"tag"}, "l", {}};
  std::set<std::string> names;
  for (const auto& [b, m] : c.by_tag) {
    tags.header.push_back("vs " + b + " (pairs)");
    tags.align += 'r';
    for (const auto& [tag, g] : m) names.insert(tag);
  }
  for (const auto& tag : names) {
    doc::Table::Row r{{{T(tag)}}, ""};
    for (const auto& [b, m] : c.by_tag) {
      auto it = m.find(tag);
      r.cells.push_back(
          {T(it == m.end() ? "-" : rt::ratio3(it->second.geomean) + " (" + std::to_string(it->second.pairs) + ")")});
    }
    tags.rows.push_back(std::move(r));
  }
  d.push_back(doc::heading(3, {T("Geomean change by tag")}));
  d.push_back(doc::table(std::move(tags)));
}

doc::Block rows_block(const CompareResult& c) {
  doc::Table rows{{"row", "vs", "class", "change", "change CI", "90% CI (SAME)", "old ratio", "new ratio",
                   "candidate us old", "candidate us new", "baseline us old", "baseline us new"},
                  "lllrrrrrrrrr",
                  {}};
  auto us = [](const std::optional<double>& x) { return rt::opt(x, rt::sig4); };
  for (const auto& p : c.pairs) {
    const std::string cls = to_string(p.cls);
    std::string why;
    if (p.cls == ChangeClass::unmeasured)
      why = " (" + to_string(p.old_disposition) + " -> " + to_string(p.new_disposition) + ")";
    rows.rows.push_back({{{C(p.id)},
                          {C(p.baseline)},
                          {p.cls == ChangeClass::slower || p.cls == ChangeClass::faster ? B(cls) : T(cls + why)},
                          {T(p.change ? rt::ratio3(*p.change) + " (" + rt::change_pct(*p.change) + ")" : "-")},
                          {T(p.change_ci ? rt::interval3(p.change_ci->lo, p.change_ci->hi) : "-")},
                          {T(p.equivalence_ci ? rt::interval3(p.equivalence_ci->lo, p.equivalence_ci->hi) : "-")},
                          {T(rt::opt(p.old_ratio, rt::ratio3))},
                          {T(rt::opt(p.new_ratio, rt::ratio3))},
                          {T(us(p.old_candidate_us))},
                          {T(us(p.new_candidate_us))},
                          {T(us(p.old_baseline_us))},
                          {T(us(p.new_baseline_us))}},
                         ""});
  }
  return doc::table(std::move(rows));
}

// Each receipt's failed gates under its own recorded policy, worded as `kgate gate` words them.
void failure_blocks(const CompareResult& c, std::vector<doc::Block>& d) {
  std::vector<Inline> items;
  for (const auto* side : {&c.old_failures, &c.new_failures})
    for (const RowFailure& f : *side)
      items.push_back({T(side == &c.old_failures ? "old " : "new "), C(f.row),
                       T(" (" + to_string(f.disposition) + "): " + gate_text(f.result))});
  d.push_back(doc::heading(3, {T("Gate failures (each receipt under its recorded policy)")}));
  if (items.empty())
    d.push_back(doc::para({T("None: every row of both receipts passes its policy.")}));
  else
    d.push_back(doc::list(std::move(items)));
}

}  // namespace

std::vector<doc::Block> compare_document(const CompareResult& c) {
  std::vector<doc::Block> d;
  header_blocks(c, d);
  geomean_blocks(c, d);
  d.push_back(doc::heading(3, {T("Rows")}));
  d.push_back(rows_block(c));
  if (!c.only_old.empty() || !c.only_new.empty()) {
    std::vector<Inline> items;
    for (const auto& [id, b] : c.only_old) items.push_back({T("only in old: "), C(id), T(" vs "), C(b)});
    for (const auto& [id, b] : c.only_new) items.push_back({T("only in new: "), C(id), T(" vs "), C(b)});
    d.push_back(doc::heading(3, {T("Rows in one receipt only")}));
    d.push_back(doc::list(std::move(items)));
  }
  failure_blocks(c, d);
  return d;
}

std::string compare_markdown(const CompareResult& c) { return doc::render_md(compare_document(c)) + "\n"; }

std::string compare_json(const CompareResult& c) {
  auto side = [](const CompareSide& s) {
    return json{{"receipt", s.source},      {"body_sha256", s.body_sha256},   {"git_commit", s.git_commit},
                {"table", s.table},         {"cases_sha256", s.cases_sha256}, {"device", s.device},
                {"candidate", s.candidate}, {"baselines", s.baselines}};
  };
  auto ci = [](const auto& x) { return x ? json{{"lo", x->lo}, {"hi", x->hi}} : json(nullptr); };
  json j;
  j["schema"] = "kgate.compare/1";
  j["change"] = "new ratio / old ratio; ratio = baseline median / candidate median (> 1 = candidate faster)";
  j["classes_rule"] = class_rules(c.rule);
  j["threshold"] = c.rule.threshold;
  j["margin"] = c.rule.margin;
  j["run_noise"] = c.rule.run_noise;
  j["equivalence_level"] = CompareRule::kEquivalenceLevel;
  j["level"] = c.level;
  j["old"] = side(c.old_side);
  j["new"] = side(c.new_side);
  j["classes"] = c.classes;
  j["any_slower"] = c.any_slower();
  j["by_baseline"] = json::object();
  for (const auto& [b, g] : c.by_baseline) j["by_baseline"][b] = geomean_json(g);
  j["by_tag"] = json::object();
  for (const auto& [b, m] : c.by_tag)
    for (const auto& [tag, g] : m) j["by_tag"][b][tag] = geomean_json(g);
  j["pairs"] = json::array();
  for (const auto& p : c.pairs)
    j["pairs"].push_back({{"row", p.id},
                          {"baseline", p.baseline},
                          {"tags", p.tags},
                          {"class", to_string(p.cls)},
                          {"old_disposition", to_string(p.old_disposition)},
                          {"new_disposition", to_string(p.new_disposition)},
                          {"change", opt_json(p.change)},
                          {"change_ci", ci(p.change_ci)},
                          {"equivalence_ci", ci(p.equivalence_ci)},
                          {"old_ratio", opt_json(p.old_ratio)},
                          {"new_ratio", opt_json(p.new_ratio)},
                          {"old_ratio_ci", ci(p.old_ci)},
                          {"new_ratio_ci", ci(p.new_ci)},
                          {"old_candidate_median_us", opt_json(p.old_candidate_us)},
                          {"new_candidate_median_us", opt_json(p.new_candidate_us)},
                          {"old_baseline_median_us", opt_json(p.old_baseline_us)},
                          {"new_baseline_median_us", opt_json(p.new_baseline_us)}});
  auto keys = [](const std::vector<std::pair<std::string, std::string>>& v) {
    json a = json::array();
    for (const auto& [id, b] : v) a.push_back({{"row", id}, {"baseline", b}});
    return a;
  };
  j["only_old"] = keys(c.only_old);
  j["only_new"] = keys(c.only_new);
  auto failures = [](const std::vector<RowFailure>& v) {
    json a = json::array();
    for (const RowFailure& f : v) {
      json g = gate_json(f.result);
      g["row"] = f.row;
      g["disposition"] = to_string(f.disposition);
      a.push_back(std::move(g));
    }
    return a;
  };
  j["failures"] = {{"old", failures(c.old_failures)}, {"new", failures(c.new_failures)}};
  return j.dump(2) + "\n";
}

}  // namespace kgate
