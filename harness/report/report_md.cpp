// The report's document (report_document), shared by the markdown and html printers.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

#include "harness/report/gate_text.hpp"
#include "harness/report/report.hpp"
#include "harness/report/report_text.hpp"

namespace kgate {
namespace {

using doc::B;
using doc::C;
using doc::Inline;
using doc::T;
namespace rt = report_text;

std::string tags_text(const std::map<std::string, std::string>& tags) {
  std::string s;
  for (const auto& [k, v] : tags) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

std::string counts_text(const std::map<std::string, int64_t>& m) {
  std::string s;
  for (const auto& [k, n] : m) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(n);
  return s.empty() ? "none" : s;
}

std::string short_sha(const std::string& s) { return s.substr(0, 12); }

Inline arms_inline(const std::vector<std::string>& names) {
  Inline in;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) in.push_back(T(", "));
    in.push_back(C(names[i]));
  }
  return in;
}

std::string ci_text(const PairRecord& p) { return p.ratio_ci ? rt::interval3(p.ratio_ci->lo, p.ratio_ci->hi) : "-"; }

doc::Block baseline_table(const ReportView& v) {
  doc::Table t{
      {"vs baseline", "registered role", "measured rows", "geomean ratio", "worst row", "min ratio"}, "llrrlr", {}};
  for (const auto& b : v.baselines) {
    auto it = v.summary.by_baseline.find(b);
    if (it == v.summary.by_baseline.end()) continue;
    const BaselineSummary& s = it->second;
    const ArmInfo* a = v.arm(b);
    t.rows.push_back(
        {{{C(b)},
          {T(a && !a->registered_role.empty() ? a->registered_role : "-")},
          {T(std::to_string(s.measured_rows) + " of " + std::to_string(s.measured_rows + s.unmeasured_rows))},
          {B(rt::opt(s.geomean_ratio, rt::ratio3))},
          {s.min_ratio_row ? C(*s.min_ratio_row) : T("-")},
          {T(rt::opt(s.min_ratio, rt::ratio3))}},
         ""});
  }
  return doc::table(std::move(t));
}

doc::Block tag_table(const ReportView& v) {
  doc::Table t{{"tag"}, "l", {}};
  std::set<std::string> tags;
  for (const auto& b : v.baselines) {
    t.header.push_back("vs " + b + " (rows)");
    t.align += 'r';
    if (auto it = v.summary.by_baseline.find(b); it != v.summary.by_baseline.end())
      for (const auto& [tag, s] : it->second.by_tag) tags.insert(tag);
  }
  for (const auto& tag : tags) {
    doc::Table::Row r{{{T(tag)}}, ""};
    for (const auto& b : v.baselines) {
      const TagSummary* ts = nullptr;
      if (auto it = v.summary.by_baseline.find(b); it != v.summary.by_baseline.end())
        if (auto ti = it->second.by_tag.find(tag); ti != it->second.by_tag.end()) ts = &ti->second;
      r.cells.push_back({T(ts ? rt::ratio3(ts->geomean_ratio) + " (" + std::to_string(ts->rows) + ")" : "-")});
    }
    t.rows.push_back(std::move(r));
  }
  return doc::table(std::move(t));
}

doc::Block rows_table(const ReportView& v) {
  doc::Table t{
      {"row", "tags", "disposition", "vs", "baseline us", "candidate us", "ratio", "99% CI", "strict / median"},
      "llllrrrrl",
      {}};
  const bool work = v.has_work(), flops = v.has_flops(), copy = v.has_copy_peak(), gemm = v.has_gemm_peak(),
             floor = v.has_floor();
  auto col = [&](bool on, const char* name) {
    if (!on) return;
    t.header.push_back(name);
    t.align += 'r';
  };
  col(work, "TB/s");
  col(flops, "TFLOP/s");
  col(copy, "% copy peak");
  col(gemm, "% GEMM peak");
  col(floor, "% of floor");
  t.header.push_back("verdict");
  t.align += 'l';
  for (const auto& rv : v.rows) {
    const RowRecord& r = rv.record;
    const std::string verdict = r.verdicts.policy ? "pass" : "FAIL (" + join(r.verdicts.failed, ", ") + ")";
    const size_t lines = std::max<size_t>(1, r.pairs.size());
    for (size_t i = 0; i < lines; ++i) {
      doc::Table::Row line{{}, "row-" + r.id};
      const bool first = i == 0;
      line.cells.push_back({T(first ? r.id : "")});
      line.cells.push_back({T(first ? tags_text(r.tags) : "")});
      line.cells.push_back({T(first ? to_string(r.disposition) : "")});
      const PairRecord* p = i < r.pairs.size() ? &r.pairs[i] : nullptr;
      const PairFigures* f = i < rv.figures.size() ? &rv.figures[i] : nullptr;
      auto med = [](const std::optional<SampleStats>& s) { return s ? rt::sig4(s->median_us) : std::string("-"); };
      line.cells.push_back({p ? C(p->baseline) : T("-")});
      line.cells.push_back({T(p ? med(p->baseline_stats) : "-")});
      line.cells.push_back({T(p ? med(p->candidate_stats) : "-")});
      line.cells.push_back({p && p->ratio ? B(rt::ratio3(*p->ratio)) : T("-")});
      line.cells.push_back({T(p ? ci_text(*p) : "-")});
      line.cells.push_back({T(f ? rt::yes_no(f->strict) + " / " + rt::yes_no(f->strict_median) : "-")});
      auto fig = [&](bool on, std::optional<double> PairFigures::*m, std::string (*fmt)(double)) {
        if (on) line.cells.push_back({T(f ? rt::opt(f->*m, fmt) : "-")});
      };
      fig(work, &PairFigures::candidate_tb_per_s, rt::sig4);
      fig(flops, &PairFigures::candidate_tflop_per_s, rt::sig4);
      fig(copy, &PairFigures::pct_copy_peak, rt::pct1);
      fig(gemm, &PairFigures::pct_gemm_peak, rt::pct1);
      fig(floor, &PairFigures::pct_of_floor, rt::pct1);
      line.cells.push_back({first ? (r.verdicts.policy ? T(verdict) : B(verdict)) : T("")});
      t.rows.push_back(std::move(line));
    }
  }
  return doc::table(std::move(t));
}

// The later acceptance beside the frozen verdict: its policy, reason and counts, and the rows
// whose verdict it changes.
std::vector<doc::Block> acceptance_section(const AcceptanceView& a, size_t rows) {
  std::vector<doc::Block> out;
  out.push_back(doc::heading(3, {T("Acceptance")}));
  out.push_back(
      doc::para({T("A later acceptance stands beside this receipt ("), C(a.statement),
                 T(", audited; the receipt's verdicts above are frozen): " + std::to_string(a.accepted_passed) +
                   " of " + std::to_string(rows) + " rows pass policy " + a.policy + " (" +
                   std::to_string(a.recorded_passed) + " passed the recorded policy). Reason: "),
                 B(a.reason)}));
  doc::Table t{{"row", "recorded", "accepted", "failed gates (accepted policy)"}, "llll", {}};
  for (const auto& r : a.rows)
    if (r.recorded != r.accepted)
      t.rows.push_back({{{C(r.id)},
                         {T(r.recorded ? "pass" : "FAIL")},
                         {T(r.accepted ? "pass" : "FAIL")},
                         {T(r.accepted_failed.empty() ? "-" : join(r.accepted_failed, ", "))}},
                        ""});
  if (t.rows.empty())
    out.push_back(doc::para({T("No row's verdict differs.")}));
  else
    out.push_back(doc::table(std::move(t)));
  return out;
}

// Every failed gate with its reason, the first `listed` of them (the rest counted), then a later
// acceptance's verdicts.
std::vector<doc::Block> failures_section(const ReportView& v, size_t listed = SIZE_MAX) {
  std::vector<doc::Block> out;
  std::vector<Inline> items;
  size_t more = 0;
  for (const auto& rv : v.rows)
    for (const auto& f : rv.failures) {
      if (items.size() == listed) {
        ++more;
        continue;
      }
      items.push_back({C(rv.record.id), T(" (" + to_string(rv.record.disposition) + "): " + gate_text(f))});
    }
  out.push_back(doc::heading(3, {T("Failures (" + std::to_string(v.summary.policy_failed) + " rows)")}));
  if (items.empty())
    out.push_back(doc::para({T("None: every row passes the policy.")}));
  else
    out.push_back(doc::list(std::move(items)));
  if (more)
    out.push_back(doc::para(
        {T(std::to_string(more) + " more failed gates: "), C("kgate gate " + v.source), T(" lists them all.")}));
  if (v.acceptance)
    for (auto& b : acceptance_section(*v.acceptance, v.rows.size())) out.push_back(std::move(b));
  return out;
}

// The room the note on what was left out takes.
constexpr size_t kLeftOutNoteChars = 600;
// How close to 1 an interval's bound may come for its pair to be near the line, and how many such
// pairs are listed.
constexpr double kNearLine = 0.02;
constexpr size_t kNearLineListed = 25;
// How many failed gates the pull-request body lists.
constexpr size_t kFailuresListed = 60;

// The pairs whose strict verdict a re-run could turn: the ratio's interval holds 1 or ends within
// 2 % of it. Closest first.
std::vector<doc::Block> near_line_section(const ReportView& v) {
  struct Near {
    const RowRecord* row;
    const PairRecord* pair;
  };
  std::vector<Near> near;
  for (const auto& rv : v.rows)
    for (const auto& p : rv.record.pairs)
      if (p.ratio && p.ratio_ci && p.ratio_ci->lo < 1 + kNearLine && p.ratio_ci->hi > 1 - kNearLine)
        near.push_back({&rv.record, &p});
  auto distance = [](const Near& n) {
    const RatioInterval& ci = *n.pair->ratio_ci;
    return ci.lo > 1 ? ci.lo - 1 : ci.hi < 1 ? 1 - ci.hi : 0.0;
  };
  std::stable_sort(near.begin(), near.end(), [&](const Near& a, const Near& b) { return distance(a) < distance(b); });
  std::vector<doc::Block> out;
  out.push_back(doc::heading(
      3, {T("Near the line (" + std::to_string(near.size()) + (near.size() == 1 ? " pair)" : " pairs)"))}));
  if (near.empty()) {
    out.push_back(doc::para({T("None: every measured pair's interval ends more than 2% from 1.")}));
    return out;
  }
  out.push_back(
      doc::para({T("Pairs whose ratio interval holds 1 or ends within 2% of it: a re-run may turn their "
                   "strict verdict; re-run them three times and report the spread.")}));
  doc::Table t{{"row", "vs", "ratio", "99% CI", "verdict"}, "llrrl", {}};
  for (size_t i = 0; i < near.size() && i < kNearLineListed; ++i) {
    const RowRecord& r = *near[i].row;
    t.rows.push_back({{{C(r.id)},
                       {C(near[i].pair->baseline)},
                       {T(rt::ratio3(*near[i].pair->ratio))},
                       {T(ci_text(*near[i].pair))},
                       {T(r.verdicts.policy ? "pass" : "FAIL (" + join(r.verdicts.failed, ", ") + ")")}},
                      ""});
  }
  out.push_back(doc::table(std::move(t)));
  if (near.size() > kNearLineListed)
    out.push_back(doc::para({T(std::to_string(near.size() - kNearLineListed) + " more in the row table.")}));
  return out;
}

doc::Block protocol_details(const ReportView& v) {
  return doc::details(
      {T("Protocol")},
      {doc::para({T(std::to_string(v.groups) + " groups x " + std::to_string(v.blocks) + " blocks (ABBA/BAAB) x m=" +
                    std::to_string(v.m) + " per pair; interval: " + v.interval.method + ", level " +
                    rt::shortest(v.interval.level) + ", " + std::to_string(v.interval.resamples) + " resamples")}),
       doc::code(v.protocol.dump(2))});
}

doc::Block arms_details(const ReportView& v) {
  doc::Table arms{{"arm", "role", "registered role", "backend", "declared kernels"}, "lllll", {}};
  doc::Table sources{{"arm", "source", "sha256"}, "lll", {}};
  for (const auto& a : v.arms) {
    arms.rows.push_back({{{C(a.name)},
                          {T(a.role)},
                          {T(a.registered_role.empty() ? "-" : a.registered_role)},
                          {T(a.backend.empty() ? "-" : a.backend)},
                          {T(a.kernel_names.empty() ? "-" : join(a.kernel_names, " "))}},
                         ""});
    for (const auto& [path, sha] : a.sources) sources.rows.push_back({{{C(a.name)}, {C(path)}, {C(sha)}}, ""});
  }
  return doc::details({T("Arms and their source digests")},
                      {doc::table(std::move(arms)), doc::table(std::move(sources))});
}

doc::Block correctness_details(const ReportView& v) {
  doc::Table t{{"row", "arm", "passed", "max abs err", "max rel err", "mismatches / elements", "worst element", "note"},
               "lllrrrll",
               {}};
  for (const auto& rv : v.rows)
    for (const auto& c : rv.record.correctness) {
      const Correctness& k = c.result;
      t.rows.push_back({{{C(rv.record.id)},
                         {C(c.arm)},
                         {T(k.passed ? "yes" : "NO")},
                         {T(rt::shortest(k.max_abs_err))},
                         {T(rt::shortest(k.max_rel_err))},
                         {T(std::to_string(k.mismatches) + " / " + std::to_string(k.elements))},
                         {T(k.worst.empty() ? "-"
                                            : k.worst + ": out " + rt::shortest(k.worst_out) + ", ref " +
                                                  rt::shortest(k.worst_ref))},
                         {T(k.note)}},
                        ""});
    }
  return doc::details({T("Correctness (every arm against the oracle)")}, {doc::table(std::move(t))});
}

// Side measurements recorded per row (GPU receipts): events timer, the kernel's own clock,
// SM clocks, throttled samples; printed as recorded.
std::optional<doc::Block> side_details(const ReportView& v) {
  doc::Table t{{"row", "arm", "events median us", "own-clock median us", "SM clock min-max MHz", "throttled samples"},
               "llrrlr",
               {}};
  for (const auto& rv : v.rows) {
    const RowRecord& r = rv.record;
    if (!r.events_timer_us && !r.self_clock_us && !r.sm_clock_mhz) continue;
    std::set<std::string> arms;
    for (const auto* m : {&r.events_timer_us, &r.self_clock_us, &r.sm_clock_mhz})
      if (*m)
        for (const auto& [arm, s] : **m) arms.insert(arm);
    for (const auto& arm : arms) {
      auto med = [&](const std::optional<std::map<std::string, SideSummary>>& m) {
        return m && m->count(arm) ? rt::sig4(m->at(arm).median) : std::string("-");
      };
      const std::string clk =
          r.sm_clock_mhz && r.sm_clock_mhz->count(arm)
              ? rt::shortest(r.sm_clock_mhz->at(arm).min) + "-" + rt::shortest(r.sm_clock_mhz->at(arm).max)
              : "-";
      t.rows.push_back({{{C(r.id)},
                         {C(arm)},
                         {T(med(r.events_timer_us))},
                         {T(med(r.self_clock_us))},
                         {T(clk)},
                         {T(r.throttled_samples ? std::to_string(*r.throttled_samples) : "-")}},
                        ""});
    }
  }
  if (t.rows.empty()) return std::nullopt;
  return doc::details({T("Side measurements (events timer, own clock, SM clock, throttling)")},
                      {doc::table(std::move(t))});
}

// Where each arm's time goes (CUPTI receipts): per activity, its median time per call, beside the
// arm's median (the union of its activity); shown for arms that run more than one.
std::optional<doc::Block> activity_details(const ReportView& v) {
  doc::Table t{{"row", "arm", "activity", "median us per call", "min-max us"}, "lllrl", {}};
  for (const auto& rv : v.rows) {
    const RowRecord& r = rv.record;
    if (!r.activity_us) continue;
    for (const auto& [arm, per] : *r.activity_us) {
      if (per.size() < 2) continue;
      for (const auto& [name, s] : per)
        t.rows.push_back({{{C(r.id)},
                           {C(arm)},
                           {C(rt::activity_label(name))},
                           {T(rt::sig4(s.median))},
                           {T(rt::shortest(s.min) + "-" + rt::shortest(s.max))}},
                          ""});
    }
  }
  if (t.rows.empty()) return std::nullopt;
  return doc::details({T("Time per activity, for arms of several kernels (CUPTI: each kernel's own duration, "
                         "so overlapping activities, such as a kernel launched early to wait on another, are "
                         "counted in each; rank runs: rank 0's)")},
                      {doc::table(std::move(t))});
}

}  // namespace

ReportDocument report_document(const ReportView& v) {
  ReportDocument doc_parts;
  std::vector<doc::Block>& d = doc_parts.banner;
  Inline title = {T("kgate: "), C(v.candidate), T(" vs ")};
  for (const auto& s : arms_inline(v.baselines)) title.push_back(s);
  title.push_back(T(" on " + v.device + ", table "));
  title.push_back(C(v.table));
  d.push_back(doc::heading(2, title));
  d.push_back(doc::para({T("Derived file: made by "), C("kgate report"), T(" from receipt "), C(v.source),
                         T(", body sha256 "), C(v.body_sha256), T("; "), C("kgate audit"), T(" ignores it.")}));
  d.push_back(doc::para({B("Ratio = baseline median / candidate median: > 1 means the candidate is faster."),
                         T(" " + rt::shortest(v.interval.level * 100) + "% CI: the ratio's interval by " +
                           v.interval.method + " (" + std::to_string(v.interval.resamples) +
                           " resamples over the run's groups and ABBA/BAAB blocks); strict = its lower bound > 1.")}));
  const Summary& s = v.summary;
  d.push_back(
      doc::para({B("Verdict: " + std::to_string(s.policy_passed) + " of " + std::to_string(s.rows) +
                   " rows pass the policy, " + std::to_string(s.policy_failed) + " fail."),
                 T(" Failed gates: " + counts_text(s.gate_failures) +
                   ". How the rows' measurements ended, before any gate (a passed row may still fail a gate): " +
                   counts_text(s.dispositions) + ".")}));
  if (v.acceptance)
    d.push_back(doc::para({B("Accepted later: " + std::to_string(v.acceptance->accepted_passed) + " of " +
                             std::to_string(s.rows) + " rows pass " + v.acceptance->policy + "."),
                           T(" Reason: " + v.acceptance->reason + " (see Acceptance).")}));
  std::vector<doc::Block>& body = doc_parts.head;
  std::vector<Inline> facts;
  facts.push_back({T("cases: "), C(v.cases_path), T(" (table " + v.table + ", family " + v.family + ", sha256 "),
                   C(short_sha(v.cases_sha256)), T("), " + std::to_string(v.rows.size()) + " rows")});
  facts.push_back(
      {T("device: " + v.device + "; backend " + v.backend + ", timer " + v.timer +
         (v.launch == "direct" ? "" : ", launch " + v.launch + " (every call a replay of the arm's CUDA graph)"))});
  facts.push_back(
      {T("commit: "), C(v.git_commit),
       T(" (kgate " + v.tool_version + ")" + (v.finished_utc.empty() ? "" : ", finished " + v.finished_utc))});
  facts.push_back({T("policy: " + policy_text(v.policy))});
  std::string peaks = "-";
  if (v.peaks) {
    peaks = "copy " + rt::opt(v.peaks->copy_bytes_per_s, [](double x) { return rt::sig4(x / 1e12) + " TB/s"; }) +
            (v.peaks->copy_method.empty() ? "" : " (" + v.peaks->copy_method + ")") + ", GEMM BF16 " +
            rt::opt(v.peaks->gemm_bf16_flops_per_s, [](double x) { return rt::sig4(x / 1e12) + " TFLOP/s"; }) +
            (v.peaks->gemm_method.empty() ? "" : " (" + v.peaks->gemm_method + ")");
  }
  facts.push_back({T("measured peaks: " + peaks)});
  body.push_back(doc::list(std::move(facts)));
  body.push_back(baseline_table(v));
  body.push_back(doc::heading(3, {T("Geomean ratio by tag")}));
  body.push_back(tag_table(v));
  std::vector<doc::Block>& rows = doc_parts.rows;
  rows.push_back(doc::heading(3, {T("Rows")}));
  rows.push_back(doc::para({T(
      "us: medians. ratio: baseline / candidate. strict / median: the recorded verdicts of the gates judging the pair "
      "(CI lower bound > 1 / median ratio > 1). TB/s, TFLOP/s: the family's work model over the candidate's median; "
      "% copy / GEMM peak: of the peaks measured at start-up; % of floor: floor time / candidate time.")}));
  rows.push_back(rows_table(v));
  doc_parts.failures = failures_section(v);
  auto& details = doc_parts.details;
  details.emplace_back("Protocol", protocol_details(v));
  details.emplace_back("Arms and their source digests", arms_details(v));
  details.emplace_back("Correctness", correctness_details(v));
  if (auto side = side_details(v)) details.emplace_back("Side measurements", std::move(*side));
  if (auto act = activity_details(v)) details.emplace_back("Time per activity", std::move(*act));
  details.emplace_back("Environment", doc::details({T("Environment")}, {doc::code(v.environment.dump(2))}));
  return doc_parts;
}

std::vector<doc::Block> ReportDocument::body() const {
  std::vector<doc::Block> b = head;
  b.insert(b.end(), rows.begin(), rows.end());
  b.insert(b.end(), failures.begin(), failures.end());
  b.push_back(doc::heading(3, {T("Details")}));
  for (const auto& [name, block] : details) b.push_back(block);
  return b;
}

std::string report_markdown(const ReportView& v, bool full) {
  const ReportDocument d = report_document(v);
  if (full) return doc::render_md(d.banner) + "\n" + doc::render_md(d.body()) + "\n";
  // The parts in the order a reviewer reads them, each whole or left out.
  std::string out = doc::render_md(d.banner) + "\n";
  std::vector<std::string> left_out;
  auto add = [&](const std::vector<doc::Block>& blocks, const std::string& name, bool required) {
    const std::string md = doc::render_md(blocks) + "\n";
    if (!required && out.size() + md.size() + kLeftOutNoteChars > kPrBodyChars) {
      left_out.push_back(name);
      return;
    }
    out += md;
  };
  add(d.head, "", true);
  add(failures_section(v, kFailuresListed), "", true);
  add(near_line_section(v), "", true);
  add(d.rows, "the row table", false);
  std::vector<doc::Block> details_heading{doc::heading(3, {T("Details")})};
  add(details_heading, "", true);
  for (const auto& [name, block] : d.details) add({block}, name, false);
  if (!left_out.empty())
    out += doc::render_md({doc::para({T("Left out to keep this body under " + std::to_string(kPrBodyChars) +
                                        " characters: " + join(left_out, ", ") + ". "),
                                      C("kgate report " + v.source + " --format md --full"),
                                      T(" prints them; the html report holds every row.")})}) +
           "\n";
  return out;
}

}  // namespace kgate
