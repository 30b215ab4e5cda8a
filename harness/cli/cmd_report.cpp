#include <cstdio>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/run/preflight.hpp"
#include "harness/core/text.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/report.hpp"

namespace kgate::cli {

void add_report(CLI::App& app, Action& action) {
  struct Opts {
    std::string receipt, format = "md", out, anchor;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand("report", "Tables from an audited receipt, like a pull-request body (md) or for "
                                          "spreadsheets (csv).");
  sc->add_option("receipt", o->receipt, "receipt file")->required();
  sc->add_option("--format", o->format,
                 "md (rows x pairings, tag summaries) | csv | wide (one line per row, one column per arm, "
                 "every arm over --anchor: for tuning runs with many arms)")
      ->capture_default_str();
  sc->add_option("--anchor", o->anchor, "wide: the arm every time is divided by (default: the first baseline)");
  sc->add_option("--out", o->out, "write here instead of stdout");
  sc->callback([o, &action] {
    action = [o]() -> int {
      if (o->format != "md" && o->format != "csv" && o->format != "wide")
        throw InputError("--format: " + quoted(o->format) + " is not md, csv or wide");
      if (!o->anchor.empty() && o->format != "wide") throw InputError("--anchor: only with --format wide");
      if (!o->out.empty()) check_output_path(o->out, "--out");  // before the audit, not after it
      json r = load_audited(o->receipt).receipt;
      std::string text = o->format == "md" ? report_markdown(r) : o->format == "csv" ? report_csv(r) : report_wide(r, o->anchor);
      if (o->out.empty()) std::fputs(text.c_str(), stdout);
      else write_file_atomic(o->out, text);
      return kExitOk;
    };
  });
}

void add_compare(CLI::App& app, Action& action) {
  struct Opts {
    std::string old_r, new_r;
    double threshold = 0.02;
    bool fail = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand("compare", "Row-by-row change between two audited receipts: ratios, drift, regressions.");
  sc->add_option("old", o->old_r, "older receipt")->required();
  sc->add_option("new", o->new_r, "newer receipt")->required();
  sc->add_option("--threshold", o->threshold, "a ratio drop larger than this fraction is a regression")->capture_default_str();
  sc->add_flag("--fail-on-regression", o->fail, "exit 1 when any row regressed");
  sc->callback([o, &action] {
    action = [o]() -> int {
      if (!(o->threshold >= 0)) throw InputError("--threshold: must be >= 0");
      json a = load_audited(o->old_r).receipt, b = load_audited(o->new_r).receipt;
      CompareResult c = compare_receipts(a, b, o->threshold);
      std::fputs(compare_markdown(c, o->threshold).c_str(), stdout);
      return o->fail && c.regressions ? kExitFail : kExitOk;
    };
  });
}

}  // namespace kgate::cli
