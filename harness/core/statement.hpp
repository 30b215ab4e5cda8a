#pragma once
// Statements: sealed evidence about a receipt that stands beside it, bound to its body digest.
// A statement is {"schema": "kgate.statement/1", "body": in-toto Statement v1, "seal": {...}},
// sealed like a receipt (RFC 8785 canonical bytes, SHA-256, optionally a DSSE Ed25519
// signature) and written as its canonical form plus "\n". Its first subject is the receipt: its
// file name and its body digest (the receipt's seal.body_sha256), so a statement made for one
// receipt is refused beside another, and re-signing a receipt keeps its statements.
//   sanitize  compute-sanitizer's counts per row, arm and tool over the receipt's correctness
//             calls, the tool's version and each log's digest (logs kept beside the statement)
//   accept    a later policy's verdicts beside the frozen ones, with the reason
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/crypto.hpp"
#include "harness/core/jcs.hpp"
#include "harness/core/policy.hpp"
#include "harness/core/receipt.hpp"

namespace kgate {

inline constexpr const char* kStatementSchema = "kgate.statement/1";
inline constexpr const char* kSanitizePredicateType = "https://kgate.dev/sanitize/v1";
inline constexpr const char* kAcceptPredicateType = "https://kgate.dev/accept/v1";
// The compute-sanitizer tools `kgate sanitize` runs, and the set the `sanitized` gate needs.
inline const std::vector<std::string> kSanitizerTools = {"memcheck", "racecheck", "synccheck", "initcheck"};

enum class StatementKind { sanitize, accept };
std::string to_string(StatementKind k);
// Where a statement of `kind` stands by default: R.json -> R.sanitize.json, R.accept.json.
std::string statement_path(const std::string& receipt_path, StatementKind kind);

// Where a statement goes: `out` ("" for statement_path), which must lie beside the receipt and
// not be it; InputError naming --out otherwise.
std::string statement_out(const std::string& out, const std::string& receipt_path, StatementKind kind);

// The statement of `kind` about an audited receipt at `receipt_path` with `predicate` (its
// "receipt" field is filled here) and extra subjects (name, sha256) after the receipt's; sealed.
json make_statement(StatementKind kind, const std::string& receipt_path, const AuditResult& receipt, json predicate,
                    const std::vector<std::pair<std::string, std::string>>& subjects,
                    const std::optional<SigningKey>& sign_key);

// What compute-sanitizer's log says: "ERROR SUMMARY: N errors" and racecheck's "RACECHECK
// SUMMARY: N hazards displayed (E errors, W warnings)". errors: the ERROR SUMMARY's count, else
// racecheck's E; hazards: racecheck's N (0 for the other tools); found: a summary line was read.
struct SanitizerCounts {
  int64_t errors = 0, hazards = 0;
  bool found = false;
};
SanitizerCounts parse_sanitizer_log(const std::string& log);

// Per row id: "" where every arm of the row was run clean (0 errors, 0 hazards, the call
// completed) under every tool of kSanitizerTools, else why not. A row the statement does not
// cover maps to a reason too.
std::map<std::string, std::string> sanitized_rows(const json& sanitize_statement, const json& receipt);

// The `sanitized` gate over rows judged by `policy` (policy_rows): where the policy names it, a
// row passes it when `evidence` (sanitized_rows; nullopt: no statement) says "" for the row;
// the row's raw verdict, failures and policy verdict follow. Returns per failing row its reason.
std::map<std::string, std::string> judge_sanitized(std::vector<RowRecord>& rows, const Policy& policy,
                                                   const std::optional<std::map<std::string, std::string>>& evidence);

// The rows of an audited receipt under `policy`, the `sanitized` gate judged from the sanitize
// statement beside it (statement_path) when the policy names that gate. `reasons`: per row that
// fails `sanitized`, why. `sanitize_statement`: the statement read, null when none was.
std::vector<RowRecord> rows_with_evidence(const std::string& receipt_path, const AuditResult& audited,
                                          const Policy& policy, std::map<std::string, std::string>* reasons = nullptr,
                                          json* sanitize_statement = nullptr);

// The acceptance predicate: per row the recorded verdict and the one under `policy`.
json accept_predicate(const std::string& receipt_path, const AuditResult& audited, const Policy& policy,
                      const std::string& reason);

struct StatementAudit {
  std::vector<std::string> problems;  // empty = accepted
  json statement;                     // parsed, when it parsed
  std::optional<StatementKind> kind;
  std::string receipt_path;  // the receipt it is bound to, beside it
  bool ok() const { return problems.empty(); }
};
// Checks a statement: canonical bytes, seal, signature (by pubkey_path's key when given), its
// binding to the receipt beside it (which must audit) and, by kind, each log's digest and
// counts, or the acceptance's verdicts recomputed from the receipt's rows.
StatementAudit audit_statement(const std::string& path, const std::optional<std::string>& pubkey_path);
// Whether the file is a statement by its schema (unreadable or not JSON: false).
bool is_statement_file(const std::string& path);

}  // namespace kgate
