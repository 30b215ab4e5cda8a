#pragma once
// Receipts: {"schema": "kgate.receipt/1", "body": in-toto Statement v1, "seal": {...}}.
// The file's bytes are exactly the RFC 8785 canonical form of that object plus "\n", so every
// byte is significant: any change is a parse error, a non-canonical file, or a digest mismatch.
#include <optional>
#include <string>
#include <vector>

#include "harness/core/gates.hpp"
#include "harness/core/jcs.hpp"

namespace kgate {

inline constexpr const char* kReceiptSchema = "kgate.receipt/1";
inline constexpr const char* kSamplesSchema = "kgate.samples/1";
inline constexpr const char* kPredicateType = "https://kgate.dev/receipt/v1";
inline constexpr int kProtocolSchemaVersion = 2;

std::string row_digest(const json& row);
// Seals `body`; signs the body digest with an Ed25519 PEM key when sign_key is given.
json seal_receipt(const json& body, const std::optional<std::string>& sign_key);
std::string receipt_bytes(const json& receipt);  // canonical + "\n"
std::string sidecar_path_for(const std::string& receipt_path);

struct AuditResult {
  std::vector<std::string> problems;  // empty = accepted
  json receipt;                       // parsed, when it parsed
  json samples;                       // the sidecar, when its digest matched
  bool ok() const { return problems.empty(); }
};
// Recomputes every digest, statistic, verdict and summary figure. pubkey: PEM file path; when
// given, the receipt must carry a valid signature by that key.
AuditResult audit_receipt(const std::string& path, const std::optional<std::string>& pubkey_path);
// Audits a receipt and returns it (with its sidecar); throws AuditError listing the problems.
AuditResult load_audited(const std::string& path);

}  // namespace kgate
