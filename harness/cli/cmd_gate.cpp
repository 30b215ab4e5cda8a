#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/statement.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/core/tree_check.hpp"
#include "harness/core/verdicts.hpp"
#include "harness/export/loader.hpp"
#include "harness/report/gate_text.hpp"

namespace kgate::cli {
namespace {

struct GateOpts {
  std::string receipt, policy, tree;
  std::string kgate_sources = "tree";  // where kgate's own recorded sources are checked: tree | binary
  bool json = false;
};

// The policy to judge by: --policy, else the receipt's own; checked against the receipt's arms.
Policy gate_policy(const GateOpts& o, const std::optional<Policy>& given, const json& pred) {
  Policy pol = given ? *given : Policy::from_json(pred["policy"], printable(o.receipt) + ": recorded policy");
  portable_by_baseline(pol);
  std::vector<std::string> baselines;
  std::string candidate;
  for (const auto& a : pred["arms"])
    (a["role"] == "baseline" ? baselines.push_back(a["name"]) : void(candidate = a["name"]));
  for (const auto& [name, g] : pol.by_baseline)
    if (std::find(baselines.begin(), baselines.end(), name) == baselines.end())
      throw InputError("--policy: by_baseline names " + quoted(name) + ", which is not a baseline of " +
                       printable(o.receipt) + did_you_mean(name, baselines));
  check_accept_refusals(pol, candidate, baselines, "--policy");
  return pol;
}

// The recorded sources that differ from the tree's (stale) or could not be checked.
struct TreeCheck {
  size_t sources = 0, protocol = 0, unchecked = 0;
  json stale = json::array(), unchecked_items = json::array();
};

TreeCheck check_tree(const GateOpts& o, const json& body) {
  TreeCheck t;
  if (o.tree.empty()) return t;
  for (const StaleItem& item : stale_against_tree(body, o.tree, o.kgate_sources == "binary")) {
    if (!o.json) std::printf("%s\n", terminal(item.line).c_str());
    if (item.kind == StaleItem::Kind::unchecked) {
      t.unchecked_items.push_back({{"kind", "export_library"}, {"line", item.line}});
      ++t.unchecked;
      continue;
    }
    const bool protocol = item.kind == StaleItem::Kind::protocol;
    t.stale.push_back({{"kind", protocol ? "protocol" : "source"}, {"line", item.line}});
    ++(protocol ? t.protocol : t.sources);
  }
  return t;
}

// Each failing row: a FAIL line, then one line per failed gate (gate_text); as JSON, the rows.
json judge_rows(const GateOpts& o, const std::vector<RowRecord>& rows, const Policy& pol, double level,
                const std::map<std::string, std::string>& unsanitized) {
  json failures = json::array();
  for (const auto& row : rows) {
    if (row.verdicts.policy) continue;
    std::vector<GateResult> results = failed_gates(row, pol, level);
    for (GateResult& r : results)
      if (r.gate == "sanitized" && unsanitized.count(row.id)) {
        r.judged = true;  // judged from the statement (or its absence): the reason says what it found
        r.reason = unsanitized.at(row.id);
      }
    json details = json::array();
    for (const GateResult& f : results) details.push_back(gate_json(f));
    failures.push_back({{"row", row.id},
                        {"disposition", to_string(row.disposition)},
                        {"gates", row.verdicts.failed},
                        {"details", details}});
    if (o.json) continue;
    std::printf("FAIL %-40s disposition=%s gates=%s\n", terminal(row.id).c_str(), to_string(row.disposition).c_str(),
                terminal(join(row.verdicts.failed, ",")).c_str());
    for (const GateResult& f : results) std::printf("  %s\n", printable(gate_text(f), 4000).c_str());
  }
  return failures;
}

int run_gate(const GateOpts& o) {
  // A bad policy is a usage error before the receipt is read.
  std::optional<Policy> given;
  if (!o.policy.empty()) given = Policy::parse(o.policy);
  std::error_code ec;
  if (!o.tree.empty() && !std::filesystem::is_directory(o.tree, ec))
    throw InputError("--against-tree " + quoted(o.tree) + ": not a folder");
  AuditResult audited = load_audited(o.receipt);
  const json& pred = audited.receipt["body"]["predicate"];
  const Policy pol = gate_policy(o, given, pred);
  const json& interval = pred["protocol"].value("interval", json::object());
  const double level =
      interval.is_object() && interval.value("level", json()).is_number() ? interval["level"].get<double>() : 0.99;
  std::map<std::string, std::string> unsanitized;
  const std::vector<RowRecord> rows = rows_with_evidence(o.receipt, audited, pol, &unsanitized);
  const json failures = judge_rows(o, rows, pol, level, unsanitized);
  const TreeCheck t = check_tree(o, audited.receipt["body"]);
  const size_t failed = failures.size(), stale = t.sources + t.protocol;
  const int rc = failed || stale ? kExitFail : kExitOk;
  if (o.json) {
    print_json({{"receipt", o.receipt},
                {"policy", o.policy},
                {"rows", rows.size()},
                {"failed_rows", failed},
                {"passed", rc == kExitOk},
                {"failures", failures},
                {"against_tree", o.tree.empty() ? json(nullptr) : json(o.tree)},
                {"stale", t.stale},
                {"unchecked", t.unchecked_items}});
    return rc;
  }
  std::string tree_summary;
  if (!o.tree.empty())
    tree_summary =
        ", " + std::to_string(stale) + " stale vs " + one_line(o.tree) + " (" + std::to_string(t.sources) +
        " sources, " + std::to_string(t.protocol) + " protocol)" +
        (t.unchecked ? ", " + std::to_string(t.unchecked) + " export libraries not present (unchecked)" : "");
  std::printf("%s: %zu rows, %zu fail policy '%s'%s\n", terminal(o.receipt).c_str(), rows.size(), failed,
              terminal(o.policy).c_str(), terminal(tree_summary).c_str());
  return rc;
}

}  // namespace

void add_gate(CLI::App& app, Action& action) {
  auto o = std::make_shared<GateOpts>();
  auto* sc = app.add_subcommand("gate",
                                "CI gate: audit a receipt, re-judge every row under --policy, exit 1 on any "
                                "failing row; with --against-tree, also on any recorded source (kernels, case "
                                "table, oracle, protocol) that differs from or is missing in DIR or was "
                                "recorded outside it, and on a protocol schema version other than the tree's.\n"
                                "Each failing gate of a row gets a line: the ratio, its interval and the "
                                "threshold it was judged against.");
  sc->add_option("receipt", o->receipt, "receipt file")->required();
  sc->add_option("--policy", o->policy,
                 "gates: " + gate_names_text(",") +
                     " or a JSON "
                     "file (kgate run --help explains each); default: the policy the receipt records");
  sc->add_option("--against-tree", o->tree, "source tree to compare recorded source digests against");
  sc->add_option("--kgate-sources", o->kgate_sources,
                 "with --against-tree, where kgate's own recorded sources (its harness, the family's context and "
                 "oracle) are checked: tree (default: in DIR, kgate's own repository) or binary (against the "
                 "digests this kgate was built from: a kernel repository that installs kgate holds only its tables "
                 "and libraries)")
      ->check(CLI::IsMember({"tree", "binary"}));
  sc->add_flag("--json", o->json, "one JSON document on stdout: failures per row and gate, stale sources");
  sc->footer(help_footer(
      "0 every row passes and nothing is stale, 1 a row fails the policy, a source is stale, or the receipt\n"
      "does not audit, 2 usage error (a bad --policy). An export library the receipt names is stale when its bytes\n"
      "differ, and reported UNCHECKED (not stale) when it is not where the receipt recorded it.",
      "  kgate gate out/r.json                          (the policy it recorded)\n"
      "  kgate gate out/r.json --policy correct,strict\n"
      "  kgate gate out/r.json --policy cases/policies/ssu.json --against-tree .\n"
      "  kgate gate out/r.json --policy 'correct,limit(0.05)' --json | jq '.failures[].details[].text'\n"));
  sc->callback([o, &action] { action = [o]() -> int { return run_gate(*o); }; });
}

}  // namespace kgate::cli
