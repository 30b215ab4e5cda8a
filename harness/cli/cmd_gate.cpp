#include <cstdio>
#include <filesystem>

#include "harness/cli/common.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/receipt.hpp"

namespace kgate::cli {

void add_gate(CLI::App& app, Action& action) {
  struct Opts {
    std::string receipt, policy, tree;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand("gate", "CI gate: audit a receipt, re-judge every row under --policy, exit 1 on any "
                                        "failing row; with --against-tree, also on kernel sources or case tables that "
                                        "differ from the files in DIR (a kernel changed without a fresh receipt).");
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
      int stale = 0;
      if (!o->tree.empty()) {
        for (const auto& s : r["body"]["subject"]) {
          std::string name = s["name"];
          if (name.rfind("kernels/", 0) && name.rfind("references/", 0) && name.rfind("cases/", 0)) continue;
          std::string p = o->tree + "/" + name;
          std::string have = std::filesystem::exists(p) ? sha256_file_hex(p) : "missing";
          if (have != s["digest"]["sha256"]) {
            ++stale;
            std::printf("STALE %s: receipt %s, tree %s\n", name.c_str(),
                        s["digest"]["sha256"].get<std::string>().substr(0, 12).c_str(), have.substr(0, 12).c_str());
          }
        }
      }
      std::printf("%s: %zu rows, %d fail policy '%s'%s\n", o->receipt.c_str(), rows.size(), failed, o->policy.c_str(),
                  o->tree.empty() ? "" : (", " + std::to_string(stale) + " stale sources vs " + o->tree).c_str());
      return failed || stale ? kExitFail : kExitOk;
    };
  });
}

}  // namespace kgate::cli
