#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/report/index.hpp"
#include "harness/run/preflight.hpp"

namespace kgate::cli {

void add_index(CLI::App& app, Action& action) {
  struct Opts {
    std::string dir, out;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand(
      "index",
      "An index of a receipts folder (its INDEX.md), made from the receipts alone: one line per receipt (file name "
      "order) with its GPU(s), kgate commit, case table and row filter, candidate and baselines, its recorded policy "
      "and how many rows pass it, per baseline the geomean ratio and the minimum with its row (ratio = baseline "
      "median / candidate median, > 1: the candidate is faster), and the run's wall time. Every receipt is audited "
      "first; one that fails is listed as FAILED AUDIT with the reason. Reads DIR/*.json, not *.samples.json "
      "sidecars nor *.report.* files, not subfolders.\n"
      "Exit codes: 0 printed, 1 a receipt fails its audit (the index is still printed), 2 usage or input error (DIR "
      "is not a folder of receipts).");
  sc->add_option("dir", o->dir, "folder of receipts")->required();
  sc->add_flag("--json", o->json, "print JSON (schema kgate.index/1) instead of markdown");
  sc->add_option("--out", o->out, "write here instead of stdout");
  sc->footer(help_footer("0 printed, 1 a receipt fails its audit, 2 usage or input error.",
                         "  kgate index receipts/sm_90/h200 --out receipts/sm_90/h200/INDEX.md\n"
                         "  kgate index receipts/sm_90/h100 --json | jq '.receipts[] | select(.audit != \"ok\")'\n"));
  sc->callback([o, &action] {
    action = [o]() -> int {
      if (!o->out.empty()) check_output_path(o->out, "--out");
      const ReceiptIndex idx = index_receipts(o->dir);
      emit_text(o->json ? index_json(idx).dump(2) + "\n" : index_markdown(idx), o->out);
      return idx.failed_audit() ? kExitFail : kExitOk;
    };
  });
}

}  // namespace kgate::cli
