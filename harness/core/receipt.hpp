#pragma once
// Receipts: {"schema": "kgate.receipt/3", "body": in-toto Statement v1, "seal": {...}}.
// The file's bytes are exactly the RFC 8785 canonical form of that object plus "\n", so every
// byte is significant: any change is a parse error, a non-canonical file, or a digest mismatch.
#include <optional>
#include <string>
#include <vector>

#include "harness/core/crypto.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/policy.hpp"
#include "harness/core/records.hpp"

namespace kgate {

inline constexpr const char* kReceiptSchema = "kgate.receipt/3";
inline constexpr const char* kSamplesSchema = "kgate.samples/3";
inline constexpr const char* kPredicateType = "https://kgate.dev/receipt/v3";
// The measuring protocol's version, recorded as predicate.protocol.schema_version; `gate
// --against-tree` fails a receipt whose value differs from the tree's.
inline constexpr int kProtocolSchemaVersion = 3;
// The subject that names the policy by the digest of its canonical JSON.
inline constexpr const char* kPolicySubject = "kgate:policy";

std::string row_digest(const json& row);
// The digest that binds a receipt body to its sidecar (recorded there as facts_sha256): every
// recorded fact of the body that is not derived from the samples (tool, backend, environment,
// protocol, case table, arms, policy, run, and per row in order its params, tags, tolerance,
// correctness, config, disposition and error). An edit of any of them in a resealed body no
// longer matches the sidecar; the derived fields are recomputed instead.
std::string facts_digest(const json& predicate);
// Seals `body`; with a signing key, seal.signature is a DSSE envelope of the body.
json seal_receipt(const json& body, const std::optional<SigningKey>& sign_key);
std::string receipt_bytes(const json& receipt);  // canonical + "\n"
// The samples sidecar a receipt names (predicate.samples.path, beside the receipt).
std::string sidecar_path_of(const std::string& receipt_path, const json& receipt);

struct AuditResult {
  std::vector<std::string> problems;  // empty = accepted
  json receipt;                       // parsed, when it parsed
  json samples;                       // the sidecar, when its digest matched
  // A signed receipt: the key id (DSSE keyid) of the key it carries; verified only when that key
  // is the one the auditor named (--pubkey): a carried key proves nothing about who signed.
  std::string signer_keyid;
  bool signature_verified = false;
  bool ok() const { return problems.empty(); }
};
// Recomputes every digest, statistic, verdict and summary figure, and checks every recorded fact
// kgate's own code fixes (audit_facts.hpp). pubkey: PEM file path; when given, the receipt must
// carry a valid signature by that key.
AuditResult audit_receipt(const std::string& path, const std::optional<std::string>& pubkey_path);
// An audited receipt's rows, re-judged under another policy (the recorded samples are kept).
std::vector<RowRecord> rows_under_policy(const AuditResult& audited, const Policy& policy);
// Audits a receipt and returns it (with its sidecar); throws AuditError listing the problems.
AuditResult load_audited(const std::string& path);

}  // namespace kgate
