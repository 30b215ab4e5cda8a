#include "harness/core/receipt_compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/report_doc.hpp"
#include "harness/core/report_text.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"

namespace kgate {
namespace {

namespace rt = report_text;
using doc::B;
using doc::C;
using doc::Inline;
using doc::T;

CompareSide side_of(const ReportView& v) {
  return {v.source, v.body_sha256, v.git_commit, v.table, v.cases_sha256, v.device, v.candidate, v.baselines};
}

std::optional<double> median_of(const std::optional<SampleStats>& s) {
  return s ? std::optional<double>(s->median_us) : std::nullopt;
}

std::string class_rules(double t) {
  const std::string up = rt::shortest(1 + t), down = rt::shortest(1 - t), pct = rt::shortest(t * 100) + "%";
  return "FASTER: interval lower bound > 1 and change >= " + up + "; SLOWER: upper bound < 1 and change <= " + down +
         "; SAME: the interval lies within [1/" + up + ", " + up + "], or it excludes 1 but the change is within " +
         pct + " of 1; UNRESOLVED: anything else; UNMEASURED: a side has no ratio.";
}

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }
json geomean_json(const GeomeanChange& g) { return {{"pairs", g.pairs}, {"geomean_change", g.geomean}}; }

}  // namespace

std::string to_string(ChangeClass c) {
  switch (c) {
    case ChangeClass::faster:
      return "FASTER";
    case ChangeClass::slower:
      return "SLOWER";
    case ChangeClass::same:
      return "SAME";
    case ChangeClass::unresolved:
      return "UNRESOLVED";
    case ChangeClass::unmeasured:
      return "UNMEASURED";
  }
  return "?";
}

ChangeInterval change_interval(double old_ratio, const RatioInterval& old_ci, double new_ratio,
                               const RatioInterval& new_ci) {
  auto below = [](double r, const RatioInterval& ci) { return std::max(0.0, std::log(r) - std::log(ci.lo)); };
  auto above = [](double r, const RatioInterval& ci) { return std::max(0.0, std::log(ci.hi) - std::log(r)); };
  const double change = new_ratio / old_ratio;
  const double lower = std::hypot(below(new_ratio, new_ci), above(old_ratio, old_ci));
  const double upper = std::hypot(above(new_ratio, new_ci), below(old_ratio, old_ci));
  return {change * std::exp(-lower), change * std::exp(upper)};
}

ChangeClass classify_change(double change, const ChangeInterval& ci, double t) {
  if (ci.lo > 1 && change >= 1 + t) return ChangeClass::faster;
  if (ci.hi < 1 && change <= 1 - t) return ChangeClass::slower;
  const bool within = ci.lo >= 1 / (1 + t) && ci.hi <= 1 + t;
  const bool resolved = ci.lo > 1 || ci.hi < 1;
  if (within || (resolved && std::fabs(change - 1) < t)) return ChangeClass::same;
  return ChangeClass::unresolved;
}

bool CompareResult::any_slower() const {
  auto it = classes.find(to_string(ChangeClass::slower));
  return it != classes.end() && it->second > 0;
}

CompareResult compare_receipts(const ReportView& old_v, const ReportView& new_v, double threshold) {
  CompareResult c;
  c.old_side = side_of(old_v);
  c.new_side = side_of(new_v);
  c.threshold = threshold;
  c.level = new_v.interval.level;
  std::map<std::pair<std::string, std::string>, std::pair<const RowRecord*, const PairRecord*>> old_pairs;
  std::vector<std::pair<std::string, std::string>> old_order;
  for (const auto& rv : old_v.rows)
    for (const auto& p : rv.record.pairs) {
      // An export baseline matches by its portable name: a receipt written before export arms
      // went by file name recorded the path it was loaded from.
      old_pairs[{rv.record.id, portable_export_name(p.baseline)}] = {&rv.record, &p};
      old_order.emplace_back(rv.record.id, portable_export_name(p.baseline));
    }
  std::set<std::pair<std::string, std::string>> matched;
  std::map<std::string, std::vector<double>> changes;
  std::map<std::string, std::map<std::string, std::vector<double>>> tag_changes;
  for (const auto& rv : new_v.rows)
    for (const auto& p : rv.record.pairs) {
      const auto key = std::make_pair(rv.record.id, portable_export_name(p.baseline));
      auto it = old_pairs.find(key);
      if (it == old_pairs.end()) {
        c.only_new.push_back(key);
        continue;
      }
      matched.insert(key);
      const RowRecord& orow = *it->second.first;
      const PairRecord& op = *it->second.second;
      PairChange pc;
      pc.id = key.first;
      pc.baseline = key.second;
      pc.tags = rv.record.tags;
      pc.old_disposition = orow.disposition;
      pc.new_disposition = rv.record.disposition;
      pc.old_baseline_us = median_of(op.baseline_stats);
      pc.new_baseline_us = median_of(p.baseline_stats);
      pc.old_candidate_us = median_of(op.candidate_stats);
      pc.new_candidate_us = median_of(p.candidate_stats);
      pc.old_ratio = op.ratio;
      pc.new_ratio = p.ratio;
      pc.old_ci = op.ratio_ci;
      pc.new_ci = p.ratio_ci;
      if (op.ratio && p.ratio && op.ratio_ci && p.ratio_ci && *op.ratio > 0 && *p.ratio > 0 && op.ratio_ci->lo > 0 &&
          p.ratio_ci->lo > 0) {
        pc.change = *p.ratio / *op.ratio;
        pc.change_ci = change_interval(*op.ratio, *op.ratio_ci, *p.ratio, *p.ratio_ci);
        pc.cls = classify_change(*pc.change, *pc.change_ci, threshold);
        changes[pc.baseline].push_back(*pc.change);
        for (const auto& [k, val] : pc.tags) tag_changes[pc.baseline][k + "=" + val].push_back(*pc.change);
      }
      ++c.classes[to_string(pc.cls)];
      c.pairs.push_back(std::move(pc));
    }
  for (const auto& key : old_order)
    if (!matched.count(key)) c.only_old.push_back(key);
  if (c.pairs.empty())
    throw InputError("no rows match: no (row id, baseline) pair is in both " + old_v.source + " (" +
                     std::to_string(old_order.size()) + " pairs, candidate " + old_v.candidate + ") and " +
                     new_v.source + " (" + std::to_string(c.only_new.size()) + " pairs, candidate " + new_v.candidate +
                     ")");
  for (const auto& [b, v] : changes) c.by_baseline[b] = {static_cast<int64_t>(v.size()), geomean(v)};
  for (const auto& [b, tags] : tag_changes)
    for (const auto& [tag, v] : tags) c.by_tag[b][tag] = {static_cast<int64_t>(v.size()), geomean(v)};
  return c;
}

std::string compare_markdown(const CompareResult& c) {
  std::vector<doc::Block> d;
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
       T(" Change interval: the two recorded " + rt::shortest(c.level * 100) +
         "% ratio intervals combined in log space (half-widths in quadrature, lower and upper sides separately). "
         "Classes, "
         "threshold " +
         rt::shortest(c.threshold) + ": " + class_rules(c.threshold))}));
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

  doc::Table geo{{"vs baseline", "pairs with a change", "geomean change"}, "lrr", {}};
  for (const auto& [b, g] : c.by_baseline)
    geo.rows.push_back(
        {{{C(b)}, {T(std::to_string(g.pairs))}, {B(rt::ratio3(g.geomean) + " (" + rt::change_pct(g.geomean) + ")")}},
         ""});
  d.push_back(doc::heading(3, {T("Geomean change")}));
  d.push_back(doc::table(std::move(geo)));
  if (!c.by_tag.empty()) {
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

  doc::Table rows{{"row", "vs", "class", "change", "change CI", "old ratio", "new ratio", "candidate us old",
                   "candidate us new", "baseline us old", "baseline us new"},
                  "lllrrrrrrrr",
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
                          {T(rt::opt(p.old_ratio, rt::ratio3))},
                          {T(rt::opt(p.new_ratio, rt::ratio3))},
                          {T(us(p.old_candidate_us))},
                          {T(us(p.new_candidate_us))},
                          {T(us(p.old_baseline_us))},
                          {T(us(p.new_baseline_us))}},
                         ""});
  }
  d.push_back(doc::heading(3, {T("Rows")}));
  d.push_back(doc::table(std::move(rows)));
  if (!c.only_old.empty() || !c.only_new.empty()) {
    std::vector<Inline> items;
    for (const auto& [id, b] : c.only_old) items.push_back({T("only in old: "), C(id), T(" vs "), C(b)});
    for (const auto& [id, b] : c.only_new) items.push_back({T("only in new: "), C(id), T(" vs "), C(b)});
    d.push_back(doc::heading(3, {T("Rows in one receipt only")}));
    d.push_back(doc::list(std::move(items)));
  }
  return doc::render_md(d) + "\n";
}

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
  j["classes_rule"] = class_rules(c.threshold);
  j["threshold"] = c.threshold;
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
  return j.dump(2) + "\n";
}

}  // namespace kgate
