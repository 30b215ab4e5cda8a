#pragma once
// Report printers. Each reads a ReportView (report_view.hpp) only: no printer computes a
// statistic; the arithmetic they do is per-row presentation (TB/s, percent of a peak), done once
// in the view. Ratio direction everywhere: baseline median / candidate median, > 1 = candidate
// faster, stated in every header.
#include <string>
#include <vector>

#include "harness/core/records.hpp"
#include "harness/report/report_doc.hpp"
#include "harness/report/report_view.hpp"

namespace kgate {

// A pull-request body under kPrBodyChars whatever the table's size (a GitHub pull-request body
// holds 65,536): the headline (what was compared, where, at which commit, the policy, the verdict
// counts and failed gates, geomeans and minimum by baseline and tag), the failures with their
// reasons, the rows near the line, then, as far as they fit, the full row table and the <details>
// blocks (protocol, arms, correctness, side series, activity, environment); what does not fit is
// named, with the command that prints it. full: every part, whatever its length.
inline constexpr size_t kPrBodyChars = 60000;
std::string report_markdown(const ReportView& v, bool full = false);
// That report as a document, rendered by report_markdown and (inside its page) report_html:
// the banner (title, derived-file note, ratio direction, verdict counts), then the body's parts.
struct ReportDocument {
  std::vector<doc::Block> banner;
  std::vector<doc::Block> head;                             // facts, geomean by baseline and by tag
  std::vector<doc::Block> rows;                             // the full row table, its heading and legend
  std::vector<doc::Block> failures;                         // the failures, and a later acceptance
  std::vector<std::pair<std::string, doc::Block>> details;  // (name, <details> block)
  std::vector<doc::Block> body() const;                     // head, rows, failures, details
};
ReportDocument report_document(const ReportView& v);
// One self-contained HTML file (inline CSS and SVG, no script): the charts stacked at fixed
// positions under a fixed-height header (kHtmlHeaderPx, then kHtmlChartPx per chart), then the
// markdown report's headline, table and failures. Every row's table body has id="row-<id>".
std::string report_html(const ReportView& v);
inline constexpr int kHtmlHeaderPx = 150, kHtmlChartWidthPx = 960, kHtmlChartPx = 400;
// The view as JSON (keys sorted, so stable), schema "kgate.report/1".
std::string report_json(const ReportView& v);
// One line per (row, pair), shortest round-trip numbers; empty fields where not measured. The
// ratio column is named for its direction (ratio_baseline_over_candidate).
std::string report_csv(const ReportView& v);
// One line per row, one column per arm (the candidate's median is from its first pairing), then
// every arm's median over the anchor arm's (default: the first baseline), and their geomeans
// over the rows where every arm was measured. For tuning runs that pair many variants.
std::string report_wide(const std::vector<RowRecord>& rows, const std::string& anchor = "");

}  // namespace kgate
