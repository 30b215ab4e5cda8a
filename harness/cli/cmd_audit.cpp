#include <cstdio>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/text.hpp"

namespace kgate::cli {
namespace {

struct AuditOpts {
  std::vector<std::string> files;
  std::string pub;
  bool json = false;
};

// A samples sidecar is checked through the receipt that names it, so `audit dir/*.json` skips it.
bool is_sidecar(const std::string& f) {
  try {
    std::string why;
    std::optional<json> head = parse_json_checked(read_file(f), why);
    return head && head->is_object() && head->value("schema", "") == kSamplesSchema;
  } catch (const std::exception&) {  // unreadable: audit_receipt says so
    return false;
  }
}

// One receipt audited: its JSON result, and its lines on stdout unless --json.
json audit_one(const AuditOpts& o, const std::string& f) {
  AuditResult a = audit_receipt(f, o.pub.empty() ? std::nullopt : std::optional<std::string>(o.pub));
  if (!a.ok()) {
    if (!o.json) {
      std::printf("%s: FAILED\n", terminal(f).c_str());
      for (const auto& p : a.problems) std::printf("  - %s\n", terminal(p).c_str());
    }
    return {{"path", f}, {"kind", "receipt"}, {"ok", false}, {"problems", a.problems}};
  }
  const json& s = a.receipt["body"]["predicate"]["summary"];
  const bool signed_ = !a.receipt["seal"]["signature"].is_null();
  if (!o.json)
    std::printf("%s: OK (%lld rows, body sha256 %s%s)\n", terminal(f).c_str(),
                static_cast<long long>(s["rows"].get<int64_t>()),
                terminal(a.receipt["seal"]["body_sha256"].get<std::string>()).c_str(),
                signed_ ? ", DSSE Ed25519 signature valid" : "");
  return {{"path", f},
          {"kind", "receipt"},
          {"ok", true},
          {"rows", s["rows"]},
          {"body_sha256", a.receipt["seal"]["body_sha256"]},
          {"signature_valid", signed_}};
}

int run_audit(const AuditOpts& o) {
  int rc = kExitOk;
  json results = json::array();
  for (const auto& f : o.files) {
    if (is_sidecar(f)) {
      results.push_back({{"path", f}, {"kind", "samples sidecar"}, {"ok", nullptr}});
      if (!o.json) std::printf("%s: samples sidecar (audited through its receipt)\n", terminal(f).c_str());
      continue;
    }
    results.push_back(audit_one(o, f));
    if (!results.back()["ok"].get<bool>()) rc = kExitFail;
  }
  if (o.json) print_json({{"ok", rc == kExitOk}, {"receipts", results}});
  return rc;
}

}  // namespace

void add_audit(CLI::App& app, Action& action) {
  auto o = std::make_shared<AuditOpts>();
  auto* sc = app.add_subcommand("audit",
                                "Recompute every digest, statistic, verdict and summary figure of receipts "
                                "from their recorded numbers and sidecars; exit 1 on any mismatch.");
  sc->add_option("receipts", o->files, "receipt files")->required();
  sc->add_option("--pubkey", o->pub,
                 "require a valid DSSE Ed25519 signature by this public key (PEM, kgate keygen's .pub; must equal the "
                 "receipt's public_key_pem)");
  sc->add_flag("--json", o->json, "one JSON document on stdout: {\"ok\", \"receipts\": [{\"path\", \"ok\", ...}]}");
  sc->footer(
      help_footer("0 every receipt audits, 1 a receipt does not (tampered, unreadable, a bad signature), "
                  "2 usage error.",
                  "  kgate audit out/*.json          (sidecars are audited through their receipts)\n"
                  "  kgate audit out/r.json --pubkey ci/kgate.pub\n"
                  "  kgate audit out/r.json --json | jq .ok\n"));
  sc->callback([o, &action] { action = [o]() -> int { return run_audit(*o); }; });
}

}  // namespace kgate::cli
