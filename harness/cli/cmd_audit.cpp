#include <cstdio>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/receipt.hpp"

namespace kgate::cli {

void add_audit(CLI::App& app, Action& action) {
  struct Opts {
    std::vector<std::string> files;
    std::string pub;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
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
  sc->callback([o, &action] {
    action = [o]() -> int {
      int rc = kExitOk;
      json results = json::array();
      for (const auto& f : o->files) {
        // A samples sidecar is checked through the receipt that names it; `audit dir/*.json` skips it.
        try {
          std::string why;
          std::optional<json> head = parse_json_checked(read_file(f), why);
          if (head && head->is_object() && head->value("schema", "") == kSamplesSchema) {
            results.push_back({{"path", f}, {"kind", "samples sidecar"}, {"ok", nullptr}});
            if (!o->json) std::printf("%s: samples sidecar (audited through its receipt)\n", f.c_str());
            continue;
          }
        } catch (const std::exception&) {  // unreadable: audit_receipt says so
        }
        AuditResult a = audit_receipt(f, o->pub.empty() ? std::nullopt : std::optional<std::string>(o->pub));
        if (a.ok()) {
          const json& s = a.receipt["body"]["predicate"]["summary"];
          const bool signed_ = !a.receipt["seal"]["signature"].is_null();
          results.push_back({{"path", f},
                             {"kind", "receipt"},
                             {"ok", true},
                             {"rows", s["rows"]},
                             {"body_sha256", a.receipt["seal"]["body_sha256"]},
                             {"signature_valid", signed_}});
          if (!o->json)
            std::printf("%s: OK (%lld rows, body sha256 %s%s)\n", f.c_str(),
                        static_cast<long long>(s["rows"].get<int64_t>()),
                        a.receipt["seal"]["body_sha256"].get<std::string>().c_str(),
                        signed_ ? ", DSSE Ed25519 signature valid" : "");
        } else {
          rc = kExitFail;
          results.push_back({{"path", f}, {"kind", "receipt"}, {"ok", false}, {"problems", a.problems}});
          if (o->json) continue;
          std::printf("%s: FAILED\n", f.c_str());
          for (const auto& p : a.problems) std::printf("  - %s\n", p.c_str());
        }
      }
      if (o->json) print_json({{"ok", rc == kExitOk}, {"receipts", results}});
      return rc;
    };
  });
}

}  // namespace kgate::cli
