#include <cstdio>

#include "harness/cli/common.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/tree_check.hpp"

namespace kgate::cli {

void add_gate(CLI::App& app, Action& action) {
  struct Opts {
    std::string receipt, policy, tree;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand("gate", "CI gate: audit a receipt, re-judge every row under --policy, exit 1 on any "
                                        "failing row; with --against-tree, also on any recorded source (kernels, case "
                                        "table, oracle, protocol) that differs from or is missing in DIR or was "
                                        "recorded outside it, and on a protocol schema version other than the tree's.");
  sc->add_option("receipt", o->receipt, "receipt file")->required();
  sc->add_option("--policy", o->policy, "gates: correct,strict,limit(L),drift(D),parity,fallback or a JSON file")->required();
  sc->add_option("--against-tree", o->tree, "source tree to compare recorded source digests against");
  sc->callback([o, &action] {
    action = [o]() -> int {
      AuditResult audited = load_audited(o->receipt);
      const json& r = audited.receipt;
      Policy pol = Policy::parse(o->policy);
      const json& pred = r["body"]["predicate"];
      for (const auto& [name, g] : pol.by_baseline) {
        bool found = false;
        for (const auto& a : pred["arms"]) found |= a["name"] == name && a["role"] == "baseline";
        if (!found) throw InputError("--policy: by_baseline names '" + name + "', which is not a baseline of " + o->receipt);
      }
      int failed = 0;
      std::vector<RowRecord> rows = rows_under_policy(audited, pol);
      for (const auto& row : rows) {
        if (row.verdicts.policy) continue;
        ++failed;
        std::string why;
        for (const auto& g : row.verdicts.failed) why += (why.empty() ? "" : ",") + g;
        std::printf("FAIL %-40s disposition=%s gates=%s\n", row.id.c_str(), to_string(row.disposition).c_str(), why.c_str());
      }
      size_t stale_sources = 0, stale_protocol = 0;
      if (!o->tree.empty()) {
        for (const StaleItem& item : stale_against_tree(r["body"], o->tree)) {
          std::printf("%s\n", item.line.c_str());
          ++(item.kind == StaleItem::Kind::protocol ? stale_protocol : stale_sources);
        }
      }
      const size_t stale = stale_sources + stale_protocol;
      std::string tree_summary;
      if (!o->tree.empty())
        tree_summary = ", " + std::to_string(stale) + " stale vs " + one_line(o->tree) + " (" +
                       std::to_string(stale_sources) + " sources, " + std::to_string(stale_protocol) + " protocol)";
      std::printf("%s: %zu rows, %d fail policy '%s'%s\n", o->receipt.c_str(), rows.size(), failed, o->policy.c_str(),
                  tree_summary.c_str());
      return failed || stale ? kExitFail : kExitOk;
    };
  });
}

}  // namespace kgate::cli
