#include "harness/core/statement.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <regex>

#include "harness/core/dsse.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/text.hpp"

namespace kgate {
namespace fs = std::filesystem;

std::string to_string(StatementKind k) { return k == StatementKind::sanitize ? "sanitize" : "accept"; }

std::string statement_path(const std::string& receipt_path, StatementKind kind) {
  const std::string suffix = "." + to_string(kind) + ".json";
  const std::string ext = ".json";
  if (receipt_path.size() > ext.size() && receipt_path.compare(receipt_path.size() - ext.size(), ext.size(), ext) == 0)
    return receipt_path.substr(0, receipt_path.size() - ext.size()) + suffix;
  return receipt_path + suffix;
}

std::string statement_out(const std::string& out, const std::string& receipt_path, StatementKind kind) {
  const std::string path = out.empty() ? statement_path(receipt_path, kind) : out;
  const fs::path abs = fs::absolute(path), receipt = fs::absolute(receipt_path);
  if (abs.parent_path() != receipt.parent_path())
    throw InputError("--out: a statement stands beside its receipt (in " + printable(receipt.parent_path().string()) +
                     ")");
  if (abs == receipt) throw InputError("--out: is the receipt itself");
  return path;
}

namespace {

using Bad = std::function<void(const std::string&)>;

// The receipt a statement is about: its file name and body digest.
json receipt_ref(const std::string& receipt_path, const AuditResult& receipt) {
  return {{"name", fs::path(receipt_path).filename().string()},
          {"body_sha256", receipt.receipt["seal"]["body_sha256"]}};
}

bool exact_keys(const json& j, std::initializer_list<const char*> keys) {
  if (!j.is_object() || j.size() != keys.size()) return false;
  return std::all_of(keys.begin(), keys.end(), [&](const char* k) { return j.contains(k); });
}

bool names_gate(const Policy& p, const std::string& gate) {
  auto in = [&](const GateSet& gs) { return std::find(gs.gates.begin(), gs.gates.end(), gate) != gs.gates.end(); };
  if (in(p)) return true;
  return std::any_of(p.by_baseline.begin(), p.by_baseline.end(), [&](const auto& kv) { return in(kv.second); });
}

// The arms a receipt row checked (its correctness entries), in order.
std::vector<std::string> checked_arms(const json& row) {
  std::vector<std::string> arms;
  if (row.contains("correctness") && row["correctness"].is_array())
    for (const auto& c : row["correctness"])
      if (c.is_object() && c.contains("arm") && c["arm"].is_string()) arms.push_back(c["arm"]);
  return arms;
}

// Why one sanitizer run is not clean, "" when it is.
std::string run_fault(const json& run) {
  const std::string what = run.value("arm", "") + " under " + run.value("tool", "");
  if (!run.value("errors", json()).is_number_integer()) return what + ": no summary in its log";
  if (run.value("exit_code", -1) != 0)
    return what + ": the call did not complete (exit " + std::to_string(run.value("exit_code", -1)) + ")";
  if (run["errors"].get<int64_t>() > 0) return what + ": " + std::to_string(run["errors"].get<int64_t>()) + " errors";
  if (run.value("hazards", int64_t{0}) > 0)
    return what + ": " + std::to_string(run["hazards"].get<int64_t>()) + " hazards";
  return "";
}

}  // namespace

json make_statement(StatementKind kind, const std::string& receipt_path, const AuditResult& receipt, json predicate,
                    const std::vector<std::pair<std::string, std::string>>& subjects,
                    const std::optional<SigningKey>& sign_key) {
  const json ref = receipt_ref(receipt_path, receipt);
  predicate["receipt"] = ref;
  json subject = json::array({{{"name", ref["name"]}, {"digest", {{"sha256", ref["body_sha256"]}}}}});
  for (const auto& [name, sha] : subjects) subject.push_back({{"name", name}, {"digest", {{"sha256", sha}}}});
  const json body = {{"_type", "https://in-toto.io/Statement/v1"},
                     {"subject", subject},
                     {"predicateType", kind == StatementKind::sanitize ? kSanitizePredicateType : kAcceptPredicateType},
                     {"predicate", predicate}};
  json seal = {
      {"canonicalization", "RFC8785"}, {"algorithm", "sha256"}, {"body_sha256", sha256_hex(canonicalize(body))}};
  seal["signature"] = nullptr;
  if (sign_key)
    seal["signature"] = {{"dsse", dsse_sign_ed25519(kInTotoPayloadType, canonicalize(body), *sign_key)},
                         {"public_key_pem", sign_key->public_pem()}};
  return {{"schema", kStatementSchema}, {"body", body}, {"seal", seal}};
}

SanitizerCounts parse_sanitizer_log(const std::string& log) {
  static const std::regex error_summary(R"(ERROR SUMMARY: (\d+) errors?)");
  static const std::regex race_summary(
      R"(RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\))");
  SanitizerCounts c;
  std::optional<int64_t> errors, race_errors;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), error_summary); it != std::sregex_iterator(); ++it)
    errors = errors.value_or(0) + std::stoll((*it)[1].str());
  for (auto it = std::sregex_iterator(log.begin(), log.end(), race_summary); it != std::sregex_iterator(); ++it) {
    c.hazards += std::stoll((*it)[1].str());
    race_errors = race_errors.value_or(0) + std::stoll((*it)[2].str());
  }
  c.found = errors || race_errors;
  c.errors = errors ? *errors : race_errors.value_or(0);
  return c;
}

std::map<std::string, std::string> sanitized_rows(const json& statement, const json& receipt) {
  const json& runs = statement.at("body").at("predicate").at("runs");
  std::map<std::string, std::string> out;
  for (const auto& row : receipt.at("body").at("predicate").at("rows")) {
    const std::string id = row.value("id", "");
    const std::vector<std::string> arms = checked_arms(row);
    std::string why =
        arms.empty() ? "no correctness call to sanitize (disposition " + row.value("disposition", "") + ")" : "";
    for (const auto& arm : arms)
      for (const auto& tool : kSanitizerTools) {
        if (!why.empty()) break;
        auto it = std::find_if(runs.begin(), runs.end(), [&](const json& r) {
          const json rows = r.value("rows", json::array());
          return std::find(rows.begin(), rows.end(), json(id)) != rows.end() && r.value("arm", "") == arm &&
                 r.value("tool", "") == tool;
        });
        why = it == runs.end() ? arm + " was not run under " + tool : run_fault(*it);
      }
    out[id] = why;
  }
  return out;
}

std::map<std::string, std::string> judge_sanitized(std::vector<RowRecord>& rows, const Policy& policy,
                                                   const std::optional<std::map<std::string, std::string>>& evidence) {
  std::map<std::string, std::string> reasons;
  if (!names_gate(policy, "sanitized")) return reasons;
  for (RowRecord& row : rows) {
    std::string why = "no sanitize statement beside the receipt (kgate sanitize makes one)";
    if (evidence) {
      auto it = evidence->find(row.id);
      why = it == evidence->end() ? "the sanitize statement does not cover this row" : it->second;
    }
    row.verdicts.raw["sanitized"] = why.empty();
    // judge_row fails every gate it has no raw verdict for: the statement decides this one.
    std::vector<std::string> kept;
    for (const std::string& label : row.verdicts.failed)
      if (label.substr(0, label.find('@')) != "sanitized" || !why.empty()) kept.push_back(label);
    if (!why.empty() && std::find(kept.begin(), kept.end(), "sanitized") == kept.end() &&
        std::find(policy.gates.begin(), policy.gates.end(), "sanitized") != policy.gates.end())
      kept.push_back("sanitized");
    row.verdicts.failed = kept;
    row.verdicts.policy = kept.empty();
    if (!why.empty()) reasons[row.id] = why;
  }
  return reasons;
}

std::vector<RowRecord> rows_with_evidence(const std::string& receipt_path, const AuditResult& audited,
                                          const Policy& policy, std::map<std::string, std::string>* reasons,
                                          json* sanitize_statement) {
  std::vector<RowRecord> rows = rows_under_policy(audited, policy);
  if (sanitize_statement) *sanitize_statement = nullptr;
  if (!names_gate(policy, "sanitized")) return rows;
  std::optional<std::map<std::string, std::string>> evidence;
  const std::string s = statement_path(receipt_path, StatementKind::sanitize);
  std::string missing;
  if (file_exists(s)) {
    StatementAudit a = audit_statement(s, std::nullopt);
    if (a.ok() && a.kind == StatementKind::sanitize) {
      evidence = sanitized_rows(a.statement, audited.receipt);
      if (sanitize_statement) *sanitize_statement = a.statement;
    } else {
      missing = "the sanitize statement " + printable(s) + " does not audit: " +
                (a.problems.empty() ? std::string("not a sanitize statement") : a.problems.front());
    }
  }
  std::map<std::string, std::string> r = judge_sanitized(rows, policy, evidence);
  if (!missing.empty())
    for (auto& [id, why] : r) why = missing;
  if (reasons) *reasons = r;
  return rows;
}

json accept_predicate(const std::string& receipt_path, const AuditResult& audited, const Policy& policy,
                      const std::string& reason) {
  json sanitize_statement;
  const std::vector<RowRecord> later = rows_with_evidence(receipt_path, audited, policy, nullptr, &sanitize_statement);
  const json& recorded_rows = audited.receipt["body"]["predicate"]["rows"];
  json rows = json::array();
  int64_t recorded_passed = 0, accepted_passed = 0;
  for (size_t i = 0; i < later.size() && i < recorded_rows.size(); ++i) {
    const json& v = recorded_rows[i]["verdicts"];
    const RowRecord& r = later[i];
    recorded_passed += v["policy"] == true;
    accepted_passed += r.verdicts.policy;
    rows.push_back({{"id", r.id},
                    {"recorded", {{"passed", v["policy"]}, {"failed", v["failed"]}}},
                    {"accepted", {{"passed", r.verdicts.policy}, {"failed", r.verdicts.failed}}}});
  }
  json sanitize = nullptr;
  if (!sanitize_statement.is_null())
    sanitize = {{"name", fs::path(statement_path(receipt_path, StatementKind::sanitize)).filename().string()},
                {"body_sha256", sanitize_statement["seal"]["body_sha256"]}};
  return {
      {"receipt", receipt_ref(receipt_path, audited)},
      {"reason", reason},
      {"policy", policy.to_json()},
      {"recorded_policy", audited.receipt["body"]["predicate"]["policy"]},
      {"sanitize_statement", sanitize},
      {"rows", rows},
      {"summary", {{"rows", rows.size()}, {"recorded_passed", recorded_passed}, {"accepted_passed", accepted_passed}}}};
}

namespace {

// The seal's signature: null (then --pubkey is refused) or {dsse, public_key_pem} over the body.
void check_statement_signature(const json& sig, const json& body, const std::optional<std::string>& pubkey_path,
                               const Bad& bad) {
  if (sig.is_null()) {
    if (pubkey_path) bad("--pubkey given but the statement is not signed");
    return;
  }
  if (!exact_keys(sig, {"dsse", "public_key_pem"}) || !sig["public_key_pem"].is_string())
    return bad("signature block is not {dsse, public_key_pem}, the form kgate writes");
  const std::string pem = sig["public_key_pem"];
  if (pubkey_path && read_file(*pubkey_path) != pem)
    bad("signature key differs from --pubkey " + printable(*pubkey_path));
  std::string why;
  std::optional<DsseEnvelope> env = dsse_decode(sig["dsse"], why);
  if (!env) return bad(why);
  const bool payload_ok = env->payload_type == kInTotoPayloadType && env->payload == canonicalize(body);
  if (!payload_ok) bad("DSSE payload is not this statement's body");
  if (env->keyid != dsse_keyid(pem) || !dsse_verify_ed25519(*env, pem))
    bad("DSSE Ed25519 signature does not verify with the signature's public key");
}

// Each run's log beside the statement: its digest and its counts as recorded; each run's row and
// arm a checked arm of the receipt's row.
void check_sanitize(const json& pred, const std::string& path, const json& receipt, const Bad& bad) {
  if (!pred.contains("runs") || !pred["runs"].is_array()) return bad("field 'runs': not an array");
  std::map<std::string, std::vector<std::string>> arms;
  for (const auto& row : receipt["body"]["predicate"]["rows"]) arms[row.value("id", "")] = checked_arms(row);
  for (const auto& run : pred["runs"]) {
    const std::string where = "run of " + run.value("arm", "") + " under " + run.value("tool", "") + ": ";
    const json rows = run.value("rows", json::array());
    if (!rows.is_array() || rows.empty()) bad(where + "names no rows");
    for (const auto& id : rows) {
      const auto& a = arms[id.is_string() ? id.get<std::string>() : ""];
      if (std::find(a.begin(), a.end(), run.value("arm", "")) == a.end())
        bad(where + "row " + quoted(id.dump()) + " is not a receipt row that checked this arm");
    }
    const json log = run.value("log", json::object());
    const std::string name = log.value("path", "");
    if (name.empty() || fs::path(name).is_absolute() || name.find("..") != std::string::npos) {
      bad(where + "log path must lie beside the statement");
      continue;
    }
    const std::string file = (fs::path(path).parent_path() / name).string();
    if (!file_exists(file)) {
      bad(where + "log " + printable(file) + " is missing");
      continue;
    }
    const std::string text = read_file(file);
    if (sha256_hex(text) != log.value("sha256", "")) bad(where + "log " + printable(file) + ": digest mismatch");
    const SanitizerCounts c = parse_sanitizer_log(text);
    const json errors = c.found ? json(c.errors) : json(nullptr), hazards = c.found ? json(c.hazards) : json(nullptr);
    if (run.value("errors", json()) != errors || run.value("hazards", json()) != hazards)
      bad(where + "recorded counts differ from its log's summary");
  }
}

// The acceptance's verdicts recomputed from the receipt's rows under its policy.
void check_accept(const json& pred, const std::string& receipt_path, const AuditResult& receipt, const Bad& bad) {
  try {
    const Policy pol = Policy::from_json(pred.at("policy"), "statement policy");
    const json again = accept_predicate(receipt_path, receipt, pol, pred.at("reason").get<std::string>());
    if (canonicalize(again) == canonicalize(pred)) return;
    for (const char* k : {"sanitize_statement", "recorded_policy", "summary"})
      if (!pred.contains(k) || pred[k] != again[k]) bad(std::string("field '") + k + "' differs from the receipt's");
    const json& rows = pred.value("rows", json::array());
    for (size_t i = 0; i < again["rows"].size(); ++i)
      if (i >= rows.size() || rows[i] != again["rows"][i])
        bad("row " + quoted(again["rows"][i]["id"].get<std::string>()) +
            ": verdicts differ from what the receipt's rows give under the statement's policy");
    if (rows.size() != again["rows"].size()) bad("lists other rows than the receipt");
    if (pred.size() != again.size()) bad("has fields kgate does not write");
  } catch (const std::exception& e) {
    bad(std::string("acceptance: ") + printable(e.what()));
  }
}

// The envelope, seal and body shape; the kind and the receipt's file name, or nullopt.
std::optional<StatementKind> check_statement_envelope(const json& s, const Bad& bad) {
  if (!exact_keys(s, {"schema", "body", "seal"}) || s["schema"] != kStatementSchema) {
    bad(std::string("not a statement: want exactly schema (") + kStatementSchema + "), body, seal");
    return std::nullopt;
  }
  const json& seal = s["seal"];
  const json& body = s["body"];
  if (!exact_keys(seal, {"canonicalization", "algorithm", "body_sha256", "signature"}) ||
      seal["canonicalization"] != "RFC8785" || seal["algorithm"] != "sha256") {
    bad("seal is not {canonicalization RFC8785, algorithm sha256, body_sha256, signature}");
    return std::nullopt;
  }
  if (seal["body_sha256"] != sha256_hex(canonicalize(body))) {
    bad("body digest mismatch: the statement was edited after it was sealed");
    return std::nullopt;
  }
  if (!exact_keys(body, {"_type", "subject", "predicateType", "predicate"}) ||
      body["_type"] != "https://in-toto.io/Statement/v1" || !body["subject"].is_array() || body["subject"].empty() ||
      !body["predicate"].is_object() || !body["predicate"].contains("receipt")) {
    bad("body is not an in-toto Statement v1 with a subject and kgate's predicate");
    return std::nullopt;
  }
  if (body["predicateType"] == kSanitizePredicateType) return StatementKind::sanitize;
  if (body["predicateType"] == kAcceptPredicateType) return StatementKind::accept;
  bad("predicateType is neither " + std::string(kSanitizePredicateType) + " nor " + kAcceptPredicateType);
  return std::nullopt;
}

// The receipt the statement names, beside it: it audits, and its body digest is the subject's.
std::optional<AuditResult> check_binding(const json& body, const std::string& path, StatementAudit& res,
                                         const Bad& bad) {
  const json& subject = body["subject"][0];
  const json ref = body["predicate"]["receipt"];
  const std::string name = ref.value("name", "");
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == ".." ||
      subject != json{{"name", name}, {"digest", {{"sha256", ref.value("body_sha256", "")}}}}) {
    bad("the first subject is not the receipt the predicate names (a file name beside the statement)");
    return std::nullopt;
  }
  res.receipt_path = (fs::path(path).parent_path() / name).string();
  if (!file_exists(res.receipt_path)) {
    bad("the receipt it is bound to, " + printable(res.receipt_path) + ", is not beside it");
    return std::nullopt;
  }
  AuditResult r = audit_receipt(res.receipt_path, std::nullopt);
  if (!r.ok()) {
    bad("the receipt it is bound to, " + printable(res.receipt_path) + ", does not audit: " + r.problems.front());
    return std::nullopt;
  }
  if (r.receipt["seal"]["body_sha256"] != ref["body_sha256"]) {
    bad("bound to another receipt: its subject's body digest " + printable(ref.value("body_sha256", ""), 16) +
        "... is not that of " + printable(res.receipt_path) + " (" +
        r.receipt["seal"]["body_sha256"].get<std::string>().substr(0, 16) + "...)");
    return std::nullopt;
  }
  return r;
}

}  // namespace

StatementAudit audit_statement(const std::string& path, const std::optional<std::string>& pubkey_path) {
  StatementAudit res;
  const Bad bad = [&](const std::string& m) { res.problems.push_back(m); };
  try {
    const std::string bytes = read_file(path);
    std::string why;
    std::optional<json> s = parse_json_checked(bytes, why);
    if (!s) {
      bad("not valid JSON: " + why);
      return res;
    }
    if (canonicalize(*s) + "\n" != bytes)
      bad("file is not the RFC 8785 canonical form of its content (edited by hand?)");
    res.kind = check_statement_envelope(*s, bad);
    if (!res.kind) return res;
    res.statement = *s;
    const json& body = (*s)["body"];
    check_statement_signature((*s)["seal"]["signature"], body, pubkey_path, bad);
    std::optional<AuditResult> receipt = check_binding(body, path, res, bad);
    if (!receipt) return res;
    if (*res.kind == StatementKind::sanitize)
      check_sanitize(body["predicate"], path, receipt->receipt, bad);
    else
      check_accept(body["predicate"], res.receipt_path, *receipt, bad);
  } catch (const std::exception& e) {
    bad("malformed statement: " + printable(e.what()));
  }
  return res;
}

bool is_statement_file(const std::string& path) {
  try {
    std::string why;
    std::optional<json> s = parse_json_checked(read_file(path), why);
    return s && s->is_object() && s->value("schema", "") == kStatementSchema;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace kgate
