#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"
#include "harness/core/tree_check.hpp"
#include "harness/export/loader.hpp"

namespace kgate::cli {
namespace {

// One failing gate of a row (of one pair, for a pair gate), as a line and as JSON: what was
// compared with what. Read from the row's record and the policy; nothing is recomputed.
struct GateFailure {
  std::string text;
  json detail;
};

std::string num(double x, const char* fmt = "%.4f");
// Microseconds: 4 significant digits below 1000, whole microseconds above (never an exponent).
std::string us(double x) { return num(x, x >= 1000 ? "%.0f" : "%.4g"); }
std::string num(double x, const char* fmt) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, x);
  return b;
}

// Why pair gate `gate` failed on pair `p`, or nothing when this pair passed it. `label` is the
// gate as the policy names it ("strict", "limit@ssu.floor").
std::optional<GateFailure> pair_failure(const RowRecord& row, const PairRecord& p, const std::string& gate,
                                        const std::string& label, const json& raw, const GateSet& gs, double level) {
  json d = {{"gate", label}, {"baseline", p.baseline}, {"ratio", p.ratio ? json(*p.ratio) : json(nullptr)}};
  if (p.ratio_ci) d["ratio_ci"] = {{"lo", p.ratio_ci->lo}, {"hi", p.ratio_ci->hi}};
  const std::string head = label + (label.find('@') == std::string::npos ? " vs " + p.baseline : "") + ": ";
  auto fail = [&](const std::string& why, json value, json threshold) {
    d["value"] = std::move(value);
    d["threshold"] = std::move(threshold);
    d["text"] = head + why;
    return GateFailure{head + why, d};
  };
  if (!p.ratio || !p.ratio_ci || !p.baseline_stats || !p.candidate_stats)
    return fail("not measured (disposition " + to_string(row.disposition) + ")", nullptr, nullptr);
  const double r = *p.ratio;
  const std::string ratio_ci = "ratio " + num(r) + ", " + num(level * 100, "%g") + " % interval [" +
                               num(p.ratio_ci->lo) + ", " + num(p.ratio_ci->hi) + "]";
  if (gate == "strict") {
    if (p.ratio_ci->lo > 1) return std::nullopt;
    return fail(ratio_ci + ": lower bound " + num(p.ratio_ci->lo) + " is not > 1 (not resolved faster)", p.ratio_ci->lo,
                1);
  }
  if (gate == "strict_median") {
    if (r > 1) return std::nullopt;
    return fail(ratio_ci + ": median ratio " + num(r) + " is not > 1", r, 1);
  }
  if (gate == "limit") {
    if (!raw.contains("limit_value") || !raw["limit_value"].is_number())
      return fail("no limit value", nullptr, nullptr);
    const double L = raw["limit_value"].get<double>(), b = p.baseline_stats->median_us,
                 c = p.candidate_stats->median_us;
    if (c <= (1 + L) * b) return std::nullopt;
    return fail("candidate " + us(c) + " us > (1 + " + num(L, "%g") + ") x baseline " + us(b) +
                    " us = " + us((1 + L) * b) + " us (ratio " + num(r) + ", needs >= " + num(1 / (1 + L)) + ")",
                c / b, 1 + L);
  }
  if (gate == "drift") {
    const double D = gs.drift.value_or(0), drift = p.drift.value_or(0);
    if (drift > D) return fail("drift " + num(drift) + " > " + num(D, "%g") + " (ratio " + num(r) + ")", drift, D);
    if (p.groups_agree && !*p.groups_agree && std::fabs(r - 1) > D) {
      std::string groups;
      for (double g : p.group_ratios.value_or(std::vector<double>{})) groups += (groups.empty() ? "" : ", ") + num(g);
      return fail("the groups disagree in direction (group ratios " + groups + "; pooled " + num(r) + ")", drift, D);
    }
    return std::nullopt;
  }
  if (gate == "parity" || gate == "fallback") {
    if (!row.signatures) return fail("no activity signatures (needs the cupti timer)", nullptr, nullptr);
    auto a = row.signatures->find(p.baseline), b = row.signatures->find(p.candidate);
    if (a == row.signatures->end() || b == row.signatures->end())
      return fail("an arm has no activity signature", nullptr, nullptr);
    auto alk = [](const SignatureRecord& s) {
      return std::to_string(s.A) + "/" + std::to_string(s.L) + "/" + std::to_string(s.K) +
             (s.consistent ? "" : " (inconsistent)");
    };
    if (gate == "parity") {
      const bool same = a->second.A == b->second.A && a->second.L == b->second.L && a->second.K == b->second.K &&
                        a->second.consistent && b->second.consistent;
      if (same) return std::nullopt;
      return fail("activity A/L/K: candidate " + alk(b->second) + ", baseline " + alk(a->second), alk(b->second),
                  alk(a->second));
    }
    if (b->second.undeclared.empty()) return std::nullopt;
    std::string names;
    for (const auto& n : b->second.undeclared) names += (names.empty() ? "" : ", ") + one_line(n, 80);
    return fail("the candidate launched undeclared kernels: " + names, b->second.undeclared, nullptr);
  }
  return std::nullopt;
}

// Every failing gate of a failing row: one entry per gate (per pair, for a pair gate).
std::vector<GateFailure> explain(const RowRecord& row, const Policy& pol, double level) {
  std::vector<GateFailure> out;
  for (const std::string& label : row.verdicts.failed) {
    const size_t at = label.find('@');
    const std::string gate = label.substr(0, at), baseline = at == std::string::npos ? "" : label.substr(at + 1);
    if (gate == "disposition") {
      const std::string why =
          "disposition " + to_string(row.disposition) + (row.error ? ": " + one_line(*row.error) : "");
      out.push_back({why, {{"gate", label}, {"disposition", to_string(row.disposition)}, {"text", why}}});
      continue;
    }
    if (gate == "correct") {
      for (const auto& c : row.correctness) {
        if (c.result.passed) continue;
        const Correctness& k = c.result;
        const std::string why =
            "correct: " + c.arm + ": " + std::to_string(k.mismatches) + " of " + std::to_string(k.elements) +
            " elements outside atol " + num(row.tolerance.atol, "%g") + " + rtol " + num(row.tolerance.rtol, "%g") +
            " x |ref| (max abs err " + num(k.max_abs_err, "%.3g") + ", worst " + one_line(k.worst, 80) + "), " +
            std::to_string(k.nonfinite) + " non-finite, " + std::to_string(k.unwritten) + " unwritten";
        out.push_back({why,
                       {{"gate", label},
                        {"arm", c.arm},
                        {"mismatches", k.mismatches},
                        {"elements", k.elements},
                        {"max_abs_err", k.max_abs_err},
                        {"text", why}}});
      }
      if (row.correctness.empty())
        out.push_back({"correct: not checked", {{"gate", label}, {"text", "correct: not checked"}}});
      continue;
    }
    const json& raw = baseline.empty() ? row.verdicts.raw : row.verdicts.raw["by_baseline"][baseline];
    const size_t before = out.size();
    for (const auto& p : row.pairs) {
      if (!pol.judges(baseline, p.baseline)) continue;
      if (auto f = pair_failure(row, p, gate, label, raw, pol.gates_for(p.baseline), level)) out.push_back(*f);
    }
    if (out.size() == before) {  // failed, yet no pair explains it: say what the verdict was
      const std::string why = label + ": not applicable to this row (raw verdict " +
                              (raw.contains(gate) ? raw[gate].dump() : std::string("missing")) + ")";
      out.push_back({why, {{"gate", label}, {"text", why}}});
    }
  }
  return out;
}

}  // namespace

void add_gate(CLI::App& app, Action& action) {
  struct Opts {
    std::string receipt, policy, tree;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sc = app.add_subcommand("gate",
                                "CI gate: audit a receipt, re-judge every row under --policy, exit 1 on any "
                                "failing row; with --against-tree, also on any recorded source (kernels, case "
                                "table, oracle, protocol) that differs from or is missing in DIR or was "
                                "recorded outside it, and on a protocol schema version other than the tree's.\n"
                                "Each failing gate of a row gets a line: the ratio, its interval and the "
                                "threshold it was judged against.");
  sc->add_option("receipt", o->receipt, "receipt file")->required();
  sc->add_option("--policy", o->policy,
                 "gates: correct,strict,strict_median,limit(L),drift(D),parity,fallback or a JSON "
                 "file (kgate run --help explains each); default: the policy the receipt records");
  sc->add_option("--against-tree", o->tree, "source tree to compare recorded source digests against");
  sc->add_flag("--json", o->json, "one JSON document on stdout: failures per row and gate, stale sources");
  sc->footer(help_footer(
      "0 every row passes and nothing is stale, 1 a row fails the policy, a source is stale, or the receipt\n"
      "does not audit, 2 usage error (a bad --policy). An export library the receipt names is stale when its bytes\n"
      "differ, and reported UNCHECKED (not stale) when it is not where the receipt recorded it.",
      "  kgate gate out/r.json                          (the policy it recorded)\n"
      "  kgate gate out/r.json --policy correct,strict\n"
      "  kgate gate out/r.json --policy cases/policies/ssu.json --against-tree .\n"
      "  kgate gate out/r.json --policy 'correct,limit(0.05)' --json | jq '.failures[].details[].text'\n"));
  sc->callback([o, &action] {
    action = [o]() -> int {
      // A bad policy is a usage error before the receipt is read.
      std::optional<Policy> given;
      if (!o->policy.empty()) given = Policy::parse(o->policy);
      AuditResult audited = load_audited(o->receipt);
      const json& r = audited.receipt;
      const json& pred = r["body"]["predicate"];
      Policy pol = given ? *given : Policy::from_json(pred["policy"], printable(o->receipt) + ": recorded policy");
      portable_by_baseline(pol);
      std::vector<std::string> baselines;
      for (const auto& a : pred["arms"])
        if (a["role"] == "baseline") baselines.push_back(a["name"]);
      for (const auto& [name, g] : pol.by_baseline)
        if (std::find(baselines.begin(), baselines.end(), name) == baselines.end())
          throw InputError("--policy: by_baseline names " + quoted(name) + ", which is not a baseline of " +
                           printable(o->receipt) + did_you_mean(name, baselines));
      std::string candidate;
      for (const auto& a : pred["arms"])
        if (a["role"] == "candidate") candidate = a["name"];
      check_accept_refusals(pol, candidate, baselines, "--policy");
      const json& interval = pred["protocol"].value("interval", json::object());
      const double level =
          interval.is_object() && interval.value("level", json()).is_number() ? interval["level"].get<double>() : 0.99;
      int failed = 0;
      json failures = json::array();
      std::vector<RowRecord> rows = rows_under_policy(audited, pol);
      for (const auto& row : rows) {
        if (row.verdicts.policy) continue;
        ++failed;
        std::string why;
        for (const auto& g : row.verdicts.failed) why += (why.empty() ? "" : ",") + g;
        json details = json::array();
        for (const GateFailure& f : explain(row, pol, level)) details.push_back(f.detail);
        failures.push_back({{"row", row.id},
                            {"disposition", to_string(row.disposition)},
                            {"gates", row.verdicts.failed},
                            {"details", details}});
        if (o->json) continue;
        std::printf("FAIL %-40s disposition=%s gates=%s\n", row.id.c_str(), to_string(row.disposition).c_str(),
                    why.c_str());
        for (const auto& d : details) std::printf("  %s\n", d["text"].get<std::string>().c_str());
      }
      size_t stale_sources = 0, stale_protocol = 0, unchecked = 0;
      json stale_items = json::array(), unchecked_items = json::array();
      if (!o->tree.empty()) {
        for (const StaleItem& item : stale_against_tree(r["body"], o->tree)) {
          if (!o->json) std::printf("%s\n", item.line.c_str());
          if (item.kind == StaleItem::Kind::unchecked) {
            unchecked_items.push_back({{"kind", "export_library"}, {"line", item.line}});
            ++unchecked;
            continue;
          }
          const bool protocol = item.kind == StaleItem::Kind::protocol;
          stale_items.push_back({{"kind", protocol ? "protocol" : "source"}, {"line", item.line}});
          ++(protocol ? stale_protocol : stale_sources);
        }
      }
      const size_t stale = stale_sources + stale_protocol;
      const int rc = failed || stale ? kExitFail : kExitOk;
      if (o->json) {
        print_json({{"receipt", o->receipt},
                    {"policy", o->policy},
                    {"rows", rows.size()},
                    {"failed_rows", failed},
                    {"passed", rc == kExitOk},
                    {"failures", failures},
                    {"against_tree", o->tree.empty() ? json(nullptr) : json(o->tree)},
                    {"stale", stale_items},
                    {"unchecked", unchecked_items}});
        return rc;
      }
      std::string tree_summary;
      if (!o->tree.empty())
        tree_summary =
            ", " + std::to_string(stale) + " stale vs " + one_line(o->tree) + " (" + std::to_string(stale_sources) +
            " sources, " + std::to_string(stale_protocol) + " protocol)" +
            (unchecked ? ", " + std::to_string(unchecked) + " export libraries not present (unchecked)" : "");
      std::printf("%s: %zu rows, %d fail policy '%s'%s\n", o->receipt.c_str(), rows.size(), failed, o->policy.c_str(),
                  tree_summary.c_str());
      return rc;
    };
  });
}

}  // namespace kgate::cli
