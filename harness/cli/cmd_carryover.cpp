#include "harness/cli/common.hpp"
#include "harness/report/carryover.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/receipt.hpp"
#include "harness/run/preflight.hpp"

namespace kgate::cli {

void add_carryover(CLI::App& app, Action& action) {
  struct Opts {
    std::string receipt, out;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand(
      "carryover",
      "Split an audited receipt's samples by the arm whose call came just before each: another arm's (after other; "
      "for a unit's first sample, the last warm-up call) or its own (repeat). A cold run flushes the L2 before every "
      "sample either way; what the arm before leaves in the SMs' instruction and constant caches or the driver's state "
      "it does not, and a kernel in serving runs after other kernels.\n"
      "Per (row, baseline): each arm's median after other and repeat (sample counts), its carryover (after-other "
      "median / repeat median - 1), and the ratio (baseline median / candidate median, > 1: the candidate is "
      "faster) as recorded, over the after-other samples, and over the repeats; geomeans per baseline; for arms of "
      "several kernels (CUPTI receipts), the same split per kernel.\n"
      "The order is rebuilt from the receipt's protocol (groups, blocks, m, seed, warm-up) as `kgate run` times it: "
      "per unit, a warm-up of every arm (candidate, then the baselines), then each baseline's pair in turn; without a "
      "warm-up a unit's first sample is in neither subset. Medians of subsets with no interval: nothing here is "
      "sealed or judged by a gate.\n"
      "Exit codes: 0 printed, 1 the receipt fails its audit or its samples do not fit the order its protocol gives, 2 "
      "usage or input error.");
  sc->add_option("receipt", o->receipt, "receipt file (its samples sidecar beside it)")->required();
  sc->add_flag("--json", o->json, "print JSON (schema kgate.carryover/1) instead of markdown");
  sc->add_option("--out", o->out, "write here instead of stdout");
  sc->footer(
      help_footer("0 printed, 1 the receipt fails its audit or its samples do not fit its protocol's order, 2 "
                  "usage or input error.",
                  "  kgate carryover receipts/sm_90/h100/sparse_mla_fast_vs_flashmla.json\n"
                  "  kgate carryover R.json --json | jq '.by_baseline'\n"));
  sc->callback([o, &action] {
    action = [o]() -> int {
      if (!o->out.empty()) check_output_path(o->out, "--out");  // before the audit, not after it
      const AuditResult a = load_audited(o->receipt);
      check_not_the_receipt(o->out, o->receipt, a.receipt, "--out");
      const CarryoverResult c = carryover(a.receipt, a.samples, o->receipt);
      emit_text(o->json ? carryover_json(c).dump(2) + "\n" : carryover_markdown(c), o->out);
      return kExitOk;
    };
  });
}

}  // namespace kgate::cli
