#include <cstdio>

#include "harness/cli/common.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/receipt.hpp"

namespace kgate::cli {

void add_audit(CLI::App& app, Action& action) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto pub = std::make_shared<std::string>();
  auto* sc = app.add_subcommand("audit", "Recompute every digest, statistic, verdict and summary figure of receipts "
                                         "from their recorded numbers and sidecars; exit 1 on any mismatch.");
  sc->add_option("receipts", *files, "receipt files")->required();
  sc->add_option("--pubkey", *pub, "require a valid Ed25519 signature by this public key (PEM)");
  sc->callback([files, pub, &action] {
    action = [files, pub]() -> int {
      int rc = kExitOk;
      for (const auto& f : *files) {
        // A samples sidecar is checked through the receipt that names it; `audit dir/*.json` skips it.
        try {
          std::string why;
          std::optional<json> head = parse_json_checked(read_file(f), why);
          if (head && head->is_object() && head->value("schema", "") == kSamplesSchema) {
            std::printf("%s: samples sidecar (audited through its receipt)\n", f.c_str());
            continue;
          }
        } catch (const std::exception&) {  // unreadable: audit_receipt says so
        }
        AuditResult a = audit_receipt(f, pub->empty() ? std::nullopt : std::optional<std::string>(*pub));
        if (a.ok()) {
          const json& s = a.receipt["body"]["predicate"]["summary"];
          std::printf("%s: OK (%lld rows, body sha256 %s%s)\n", f.c_str(), static_cast<long long>(s["rows"].get<int64_t>()),
                      a.receipt["seal"]["body_sha256"].get<std::string>().c_str(),
                      a.receipt["seal"]["signature"].is_null() ? "" : ", Ed25519 signature valid");
        } else {
          rc = kExitFail;
          std::printf("%s: FAILED\n", f.c_str());
          for (const auto& p : a.problems) std::printf("  - %s\n", p.c_str());
        }
      }
      return rc;
    };
  });
}

}  // namespace kgate::cli
