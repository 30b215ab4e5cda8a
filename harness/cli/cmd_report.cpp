#include <cstdio>
#include <filesystem>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/statement.hpp"
#include "harness/report/compare.hpp"
#include "harness/report/report.hpp"
#include "harness/core/text.hpp"
#include "harness/run/preflight.hpp"

namespace kgate::cli {

void add_report(CLI::App& app, Action& action) {
  struct Opts {
    std::string receipt, format = "md", out, anchor;
    bool full = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand(
      "report",
      "Print an audited receipt for people: a pull-request body (md), one self-contained page with charts (html), "
      "or data (json, csv, wide). The receipt is audited first; a receipt that fails its audit is refused (exit 1).\n"
      "Ratio direction everywhere: ratio = baseline median / candidate median, > 1 means the candidate is faster.\n"
      "Interval: the receipt's 99% hierarchical block-bootstrap interval of each pair's ratio (groups, then "
      "ABBA/BAAB blocks, resampled); strict = its lower bound > 1.\n"
      "The output is a derived file: it names the receipt and its body sha256; `kgate audit` ignores it.\n"
      "Exit codes: 0 printed, 1 the receipt fails its audit, 2 usage or input error.");
  sc->add_option("receipt", o->receipt, "receipt file")->required();
  sc->add_option("--format", o->format,
                 "md: a pull-request body under 60,000 characters: headline (compared arms, device, commit, policy, "
                 "verdict counts, geomeans by baseline and tag, worst row), failures with reasons, the rows near the "
                 "line, then the row table and <details> as far as they fit (--full: all of them); html: one file, "
                 "inline SVG charts (ratio per row with CI whiskers, time vs the table's sweep parameter, percent of "
                 "floor or copy peak) and the md content; "
                 "json: the report view (stable keys); csv: one line per (row, baseline), shortest round-trip "
                 "numbers; wide: one line per row, one column per arm, every arm over --anchor (tuning runs)")
      ->capture_default_str();
  sc->add_option("--anchor", o->anchor, "wide: the arm every time is divided by (default: the first baseline)");
  sc->add_flag("--full", o->full, "md: every part, whatever the body's length");
  sc->footer(help_footer("0 printed, 1 the receipt fails its audit, 2 usage or input error.",
                         "  kgate report R.json                       (markdown on stdout: paste into a pull request)\n"
                         "  kgate report R.json --format html --out R.report.html\n"
                         "  kgate report R.json --format csv | column -s, -t\n"
                         "  kgate report R.json --format wide --anchor ssu.floor\n"));
  sc->add_option("--out", o->out, "write here instead of stdout");
  sc->callback([o, &action] {
    action = [o]() -> int {
      const std::string& f = o->format;
      if (f != "md" && f != "html" && f != "json" && f != "csv" && f != "wide")
        throw InputError("--format: " + quoted(f) + " is not md, html, json, csv or wide");
      if (!o->anchor.empty() && f != "wide") throw InputError("--anchor: only with --format wide");
      if (o->full && f != "md") throw InputError("--full: only with --format md");
      if (!o->out.empty()) check_output_path(o->out, "--out");  // before the audit, not after it
      const AuditResult audited = load_audited(o->receipt);
      check_not_the_receipt(o->out, o->receipt, audited.receipt, "--out");
      ReportView v = report_view(audited.receipt, o->receipt);
      if (!audited.samples.is_null()) v.samples = audited.samples;
      // An acceptance beside the receipt is shown beside its frozen verdict; one that does not
      // audit is refused like a receipt that does not.
      if (const std::string s = statement_path(o->receipt, StatementKind::accept); file_exists(s)) {
        const StatementAudit a = audit_statement(s, std::nullopt);
        if (!a.ok()) throw AuditError(s + ": audit failed: " + a.problems.front());
        v.acceptance = acceptance_view(a.statement, std::filesystem::path(s).filename().string());
      }
      if (f == "wide") {
        std::vector<RowRecord> rows;
        for (const auto& r : v.rows) rows.push_back(r.record);
        emit_text(report_wide(rows, o->anchor), o->out);
      } else {
        emit_text(f == "md"     ? report_markdown(v, o->full)
                  : f == "html" ? report_html(v)
                  : f == "json" ? report_json(v)
                                : report_csv(v),
                  o->out);
      }
      return kExitOk;
    };
  });
}

void add_compare(CLI::App& app, Action& action) {
  struct Opts {
    std::string old_r, new_r, out;
    CompareRule rule;
    bool json = false, html = false, fail_on_unresolved = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand(
      "compare",
      "Row-by-row change between two audited receipts (pairs matched by row id and baseline name; rows in one "
      "receipt only are listed).\n"
      "change = new ratio / old ratio, ratio = baseline median / candidate median (> 1 = candidate faster): a change "
      "> 1 means the candidate gained on its baseline. Per pair it prints both receipts' candidate and baseline "
      "medians, the change, and the change's interval: the two recorded ratio intervals combined in log space in "
      "quadrature (the lower and upper sides separately) with --run-noise, the spread two runs of one build show "
      "beyond their own intervals. Geomean change per baseline, overall and by tag; both receipts' commits and "
      "tables in the header.\n"
      "Classes, with T = --threshold and M = --margin: FASTER: interval lower bound > 1 and change >= 1+T; SLOWER: "
      "upper bound < 1 and change <= 1-T; SAME: equivalent within M by two one-sided tests at 5% each (the change's "
      "90% interval lies within [1/(1+M), 1+M]); UNRESOLVED: anything else (the runs cannot tell); UNMEASURED: a "
      "side has no ratio (see its disposition). The rule's numbers are printed with the result.\n"
      "Exit codes: 0 no pair SLOWER, 1 a pair is SLOWER (a resolved regression beyond T), a pair UNRESOLVED under "
      "--fail-on-unresolved, or a receipt fails its audit; 2 usage or input error, or no rows match.");
  sc->add_option("old", o->old_r, "older receipt")->required();
  sc->add_option("new", o->new_r, "newer receipt")->required();
  sc->add_option("--threshold", o->rule.threshold,
                 "T: the smallest change that counts as FASTER or SLOWER (a fraction)")
      ->capture_default_str();
  sc->add_option("--margin", o->rule.margin, "M: the equivalence margin of SAME (a fraction)")->capture_default_str();
  sc->add_option("--run-noise", o->rule.run_noise,
                 "the log-space standard deviation of a ratio between two runs of one build beyond their intervals "
                 "(the default: back-to-back H100 receipts of the same kernels)")
      ->capture_default_str();
  sc->add_flag("--fail-on-unresolved", o->fail_on_unresolved,
               "exit 1 when a pair is UNRESOLVED too (CI: the runs must tell SAME from a change)");
  sc->add_flag("--json", o->json, "print JSON (schema kgate.compare/1) instead of markdown");
  sc->add_flag("--html", o->html,
               "print one self-contained html page instead: per baseline, each row's change with its interval "
               "(coloured by class) and its old and new ratios with theirs, then the tables");
  sc->footer(
      help_footer("0 no pair SLOWER, 1 a pair SLOWER (or UNRESOLVED with --fail-on-unresolved) or a receipt fails "
                  "its audit, 2 usage or input error or no rows match.",
                  "  kgate compare main.json branch.json\n"
                  "  kgate compare main.json branch.json --fail-on-unresolved --margin 0.03\n"
                  "  kgate compare main.json branch.json --threshold 0.05 --json | jq '.pairs[] | select(.class == "
                  "\"SLOWER\")'\n"
                  "  kgate compare main.json branch.json --html --out compare.html\n"));
  sc->add_option("--out", o->out, "write here instead of stdout");
  sc->callback([o, &action] {
    action = [o]() -> int {
      check_compare_rule(o->rule);
      if (o->json && o->html) throw InputError("--json and --html: choose one");
      if (!o->out.empty()) check_output_path(o->out, "--out");
      const AuditResult old_r = load_audited(o->old_r), new_r = load_audited(o->new_r);
      check_not_the_receipt(o->out, o->old_r, old_r.receipt, "--out");
      check_not_the_receipt(o->out, o->new_r, new_r.receipt, "--out");
      const ReportView a = report_view(old_r.receipt, o->old_r);
      const ReportView b = report_view(new_r.receipt, o->new_r);
      const CompareResult c = compare_receipts(a, b, o->rule);
      emit_text(o->json ? compare_json(c) : o->html ? compare_html(c) : compare_markdown(c), o->out);
      return c.any_slower() || (o->fail_on_unresolved && c.any(ChangeClass::unresolved)) ? kExitFail : kExitOk;
    };
  });
}

}  // namespace kgate::cli
