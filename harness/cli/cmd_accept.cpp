// accept: a later acceptance beside a receipt's frozen verdict. Judges the receipt's rows under
// another policy with the gate machinery (the sanitized gate from the sanitize statement beside
// it) and seals the recorded verdicts, the later ones and the reason into a statement bound to
// the receipt (R.accept.json beside R). The receipt itself is never rewritten.
#include <cstdio>
#include <filesystem>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/gates.hpp"
#include "harness/core/statement.hpp"
#include "harness/core/suggest.hpp"
#include "harness/core/text.hpp"

namespace kgate::cli {
namespace {
namespace fs = std::filesystem;

struct AcceptOpts {
  std::string receipt, policy, reason, sign, out;
  bool json = false;
};

inline constexpr size_t kMaxReasonBytes = 4096;

// The reason as given: not blank, bounded, one paragraph of printable text (no control bytes).
void check_reason(const std::string& reason) {
  if (reason.find_first_not_of(" \t") == std::string::npos)
    throw InputError("--reason: empty (say why it is accepted)");
  if (reason.size() > kMaxReasonBytes)
    throw InputError("--reason: longer than " + std::to_string(kMaxReasonBytes) + " bytes");
  for (unsigned char c : reason)
    if (c < 0x20 || c == 0x7f) throw InputError("--reason: holds a control character (one line of text)");
}

int run_accept(const AcceptOpts& o) {
  check_reason(o.reason);
  Policy pol = Policy::parse(o.policy);
  portable_by_baseline(pol);
  const std::string out = statement_out(o.out, o.receipt, StatementKind::accept);
  std::optional<SigningKey> key;
  if (!o.sign.empty()) key = SigningKey::load(o.sign);
  const AuditResult audited = load_audited(o.receipt);
  std::vector<std::string> baselines;
  for (const auto& a : audited.receipt["body"]["predicate"]["arms"])
    if (a["role"] == "baseline") baselines.push_back(a["name"]);
  for (const auto& [name, g] : pol.by_baseline)
    if (std::find(baselines.begin(), baselines.end(), name) == baselines.end())
      throw InputError("--policy: by_baseline names " + quoted(name) + ", which is not a baseline of " +
                       printable(o.receipt) + did_you_mean(name, baselines));
  const json predicate = accept_predicate(o.receipt, audited, pol, o.reason);
  write_file_atomic(out,
                    canonicalize(make_statement(StatementKind::accept, o.receipt, audited, predicate, {}, key)) + "\n");
  const json& s = predicate["summary"];
  if (o.json) {
    print_json({{"statement", out}, {"summary", s}, {"rows", predicate["rows"]}});
  } else {
    for (const auto& r : predicate["rows"])
      if (r["recorded"]["passed"] != r["accepted"]["passed"])
        std::printf("%-40s recorded %s, accepted %s\n", printable(r["id"].get<std::string>()).c_str(),
                    r["recorded"]["passed"] == true ? "pass" : "FAIL",
                    r["accepted"]["passed"] == true ? "pass" : "FAIL");
    std::printf("%s: %lld of %lld rows pass policy '%s' (%lld passed the recorded policy)\n", out.c_str(),
                static_cast<long long>(s["accepted_passed"].get<int64_t>()),
                static_cast<long long>(s["rows"].get<int64_t>()), printable(o.policy).c_str(),
                static_cast<long long>(s["recorded_passed"].get<int64_t>()));
  }
  return kExitOk;
}

}  // namespace

void add_accept(CLI::App& app, Action& action) {
  auto o = std::make_shared<AcceptOpts>();
  auto* sc = app.add_subcommand(
      "accept",
      "A later acceptance beside a receipt's frozen verdict: judge its rows under --policy (the recorded samples "
      "kept) and seal the recorded verdicts, the later ones and --reason into a statement bound to the receipt's "
      "body digest (R.accept.json beside R). The receipt is not changed; kgate audit R recomputes the statement and "
      "kgate report R shows both verdicts.");
  sc->add_option("receipt", o->receipt, "receipt file")->required();
  sc->add_option("--policy", o->policy, "the later policy: " + gate_names_text(",") + " or a JSON file")->required();
  sc->add_option("--reason", o->reason, "why it is accepted (one line, recorded)")->required();
  sc->add_option("--sign", o->sign, "sign the statement (DSSE Ed25519) with this private key (kgate keygen)")
      ->check(kSignKeyPath);
  sc->add_option("--out", o->out, "statement path beside the receipt (default: R.accept.json)");
  sc->add_flag("--json", o->json, "one JSON document on stdout: the statement's path, summary and rows");
  sc->footer(help_footer(
      "0 the statement is written (whatever the later verdicts), 1 the receipt does not audit, 2 usage error "
      "(a bad policy, an empty reason).",
      "  kgate accept out/r.json --policy 'correct,limit(0.045)' --reason 'user-authorized 4.5 % ceiling'\n"
      "  kgate accept out/r.json --policy correct,strict,sanitized --reason 'sanitizer evidence' --sign ci/k.pem\n"));
  sc->callback([o, &action] { action = [o]() -> int { return run_accept(*o); }; });
}

}  // namespace kgate::cli
