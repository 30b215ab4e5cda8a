#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "harness/cli/common.hpp"
#include "harness/core/dsse.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/statement.hpp"
#include "harness/core/text.hpp"

namespace kgate::cli {
namespace {

struct AuditOpts {
  std::vector<std::string> files;
  std::string pub, trust;
  bool json = false;
};

// What a file on the command line is: a receipt (audited), a sidecar that a receipt on the
// command line names (audited through it, so `audit dir/*.json` works), a statement (sanitize
// or accept, audited against the receipt it names), or damaged beyond telling (audited, to say
// why). Anything else is not a receipt: an input error, before any audit.
enum class FileKind { receipt, sidecar, statement };
std::optional<json> head_of(const std::string& f) {
  try {
    std::string why;
    return parse_json_checked(read_file(f), why);
  } catch (const std::exception&) {  // unreadable: audit_receipt says so
    return std::nullopt;
  }
}
std::string schema_of(const json& j) {
  return j.is_object() && j.contains("schema") && j["schema"].is_string() ? j["schema"].get<std::string>() : "";
}
std::filesystem::path same_file(const std::string& p) {
  std::error_code ec;
  const auto c = std::filesystem::weakly_canonical(p, ec);
  return ec ? std::filesystem::path(p) : c;
}
std::vector<FileKind> classify(const std::vector<std::string>& files) {
  std::vector<std::optional<json>> heads;
  std::set<std::filesystem::path> named;  // sidecars the receipts name
  for (const auto& f : files) {
    heads.push_back(head_of(f));
    const auto& h = heads.back();
    if (h && schema_of(*h) == kReceiptSchema) try {
        named.insert(same_file(sidecar_path_of(f, *h)));
      } catch (const std::exception&) {  // no sidecar path: the audit says so
      }
  }
  std::vector<FileKind> kinds;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& h = heads[i];
    const std::string schema = h ? schema_of(*h) : "";
    if (!h || schema == kReceiptSchema) {
      kinds.push_back(FileKind::receipt);
    } else if (schema == kStatementSchema) {
      kinds.push_back(FileKind::statement);
    } else if (schema == kSamplesSchema && named.count(same_file(files[i]))) {
      kinds.push_back(FileKind::sidecar);
    } else {
      throw InputError(
          printable(files[i]) + ": not a kgate receipt (" +
          (schema.empty() ? std::string("no \"schema\": \"") + kReceiptSchema + "\"" : "schema " + quoted(schema)) +
          (schema == kSamplesSchema ? ", a samples sidecar no receipt given here names" : "") + ")");
    }
  }
  return kinds;
}

// --trust DIR: the public keys (kgate keygen's .pub) in DIR by key id.
std::map<std::string, std::string> trusted_keys(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError("--trust " + printable(dir) + ": not a directory");
  std::map<std::string, std::string> keys;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".pub" && e.is_regular_file(ec)) {
      const std::string id = dsse_keyid(read_file(e.path().string()));
      if (!id.empty()) keys[id] = e.path().string();
    }
  if (ec) throw InputError("--trust " + printable(dir) + ": " + ec.message());
  if (keys.empty()) throw InputError("--trust " + printable(dir) + ": holds no Ed25519 public key (*.pub)");
  return keys;
}

// The key a receipt must be signed by: --pubkey, or the --trust key of the key id it carries
// (none where no trusted key has that id: audit_one fails the receipt).
std::optional<std::string> verifying_key(const AuditOpts& o, const std::map<std::string, std::string>& trusted,
                                         const std::string& f) {
  if (!o.pub.empty()) return o.pub;
  if (o.trust.empty()) return std::nullopt;
  const std::optional<json> r = head_of(f);
  try {
    const std::string id = dsse_keyid(r->at("seal").at("signature").at("public_key_pem").get<std::string>());
    if (auto it = trusted.find(id); it != trusted.end()) return it->second;
  } catch (const std::exception&) {  // unsigned or malformed: no trusted key signed it
  }
  return std::nullopt;
}

std::string signature_words(const AuditResult& a) {
  if (a.signer_keyid.empty()) return "unsigned";
  if (a.signature_verified) return "DSSE Ed25519 signature by key " + a.signer_keyid + " verified";
  return "signed by key " + a.signer_keyid + ", not verified (no --pubkey)";
}

// One receipt audited: its JSON result, and its lines on stdout unless --json.
json audit_one(const AuditOpts& o, const std::map<std::string, std::string>& trusted, const std::string& f) {
  const std::optional<std::string> key = verifying_key(o, trusted, f);
  AuditResult a = audit_receipt(f, key);
  if (!o.trust.empty() && !key)
    a.problems.push_back(a.signer_keyid.empty() ? "--trust given but the receipt is not signed"
                                                : "signed by key " + a.signer_keyid + ", which no key in --trust " +
                                                      printable(o.trust) + " is");
  json out = {{"path", f},
              {"kind", "receipt"},
              {"ok", a.ok()},
              {"signature", a.signer_keyid.empty() ? "none"
                            : a.signature_verified ? "verified"
                                                   : "not verified"},
              {"signature_valid", a.signature_verified}};
  if (!a.signer_keyid.empty()) out["signer_keyid"] = a.signer_keyid;
  if (!a.ok()) {
    if (!o.json) {
      std::printf("%s: FAILED\n", terminal(f).c_str());
      for (const auto& p : a.problems) std::printf("  - %s\n", terminal(p).c_str());
    }
    out["problems"] = a.problems;
    return out;
  }
  const json& s = a.receipt["body"]["predicate"]["summary"];
  if (!o.json)
    std::printf("%s: OK (%lld rows, body sha256 %s, %s)\n", terminal(f).c_str(),
                static_cast<long long>(s["rows"].get<int64_t>()),
                terminal(a.receipt["seal"]["body_sha256"].get<std::string>()).c_str(), signature_words(a).c_str());
  out["rows"] = s["rows"];
  out["body_sha256"] = a.receipt["seal"]["body_sha256"];
  return out;
}

// A statement audited: alone (named on the command line, `pub` its key) or as found beside the
// receipt `beside` (then it must be bound to that receipt).
json audit_statement_one(const AuditOpts& o, const std::string& f, const std::string& beside = "") {
  StatementAudit a =
      audit_statement(f, beside.empty() && !o.pub.empty() ? std::optional<std::string>(o.pub) : std::nullopt);
  if (!beside.empty() && a.ok() && std::filesystem::path(a.receipt_path) != std::filesystem::path(beside))
    a.problems.push_back("beside " + beside + " but bound to " + a.receipt_path);
  const std::string kind = a.kind ? to_string(*a.kind) + " statement" : "statement";
  const std::string indent = beside.empty() ? "" : "  ";
  if (!o.json) {
    std::printf("%s%s: %s%s\n", indent.c_str(), terminal(f).c_str(), a.ok() ? "OK (" : "FAILED",
                a.ok() ? terminal(kind + ", bound to " + a.receipt_path + ")").c_str() : "");
    for (const auto& p : a.problems) std::printf("%s  - %s\n", indent.c_str(), terminal(p).c_str());
  }
  return {{"path", f}, {"kind", kind}, {"ok", a.ok()}, {"problems", a.problems}};
}

int run_audit(const AuditOpts& o) {
  if (!o.pub.empty() && !o.trust.empty()) throw InputError("--pubkey and --trust: give one");
  if (!o.pub.empty() && dsse_keyid(read_file(o.pub)).empty())
    throw InputError("--pubkey " + printable(o.pub) + ": not an Ed25519 public key (PEM)");
  const std::map<std::string, std::string> trusted = o.trust.empty() ? decltype(trusted){} : trusted_keys(o.trust);
  const std::vector<FileKind> kinds = classify(o.files);
  int rc = kExitOk;
  json results = json::array();
  for (size_t i = 0; i < o.files.size(); ++i) {
    const std::string& f = o.files[i];
    if (kinds[i] == FileKind::statement) {
      results.push_back(audit_statement_one(o, f));
      if (!results.back()["ok"].get<bool>()) rc = kExitFail;
      continue;
    }
    if (kinds[i] == FileKind::sidecar) {
      results.push_back({{"path", f}, {"kind", "samples sidecar"}, {"ok", nullptr}});
      if (!o.json) std::printf("%s: samples sidecar (audited through its receipt)\n", terminal(f).c_str());
      continue;
    }
    results.push_back(audit_one(o, trusted, f));
    if (!results.back()["ok"].get<bool>()) rc = kExitFail;
    // The statements beside a receipt that audits are checked with it.
    for (StatementKind k : {StatementKind::sanitize, StatementKind::accept})
      if (const std::string s = statement_path(f, k); results.back()["ok"] == true && file_exists(s)) {
        json st = audit_statement_one(o, s, f);
        if (!st["ok"].get<bool>()) rc = kExitFail;
        results.back()["statements"].push_back(st);
      }
  }
  if (o.json) print_json({{"ok", rc == kExitOk}, {"receipts", results}});
  return rc;
}

}  // namespace

void add_audit(CLI::App& app, Action& action) {
  auto o = std::make_shared<AuditOpts>();
  auto* sc = app.add_subcommand("audit",
                                "Recompute every digest, statistic, verdict and summary figure of receipts "
                                "from their recorded numbers and sidecars, and check every recorded fact kgate's "
                                "own code fixes (harness/core/AUDIT.md); exit 1 on any mismatch.");
  sc->add_option("receipts", o->files, "receipt files")->required();
  sc->add_option("--pubkey", o->pub,
                 "require a valid DSSE Ed25519 signature by this public key (PEM, kgate keygen's .pub). Without "
                 "--pubkey or --trust a signature is reported 'not verified': the key a receipt carries proves "
                 "nothing about who signed it");
  sc->add_option("--trust", o->trust,
                 "require a valid DSSE Ed25519 signature by one of the public keys (*.pub) in this folder");
  sc->add_flag("--json", o->json,
               "one JSON document on stdout: {\"ok\", \"receipts\": [{\"path\", \"ok\", \"signature\": "
               "\"verified\"|\"not verified\"|\"none\", ...}]}");
  sc->footer(help_footer(
      "0 every receipt audits (a signature is verified only with --pubkey or --trust), 1 a receipt does not "
      "(tampered, forged, unreadable, not signed by the given key), 2 usage or input error (a file that is not a "
      "receipt, a --pubkey or --trust that holds no key).",
      "  kgate audit out/*.json          (sidecars are audited through their receipts)\n"
      "  kgate audit out/r.json --pubkey ci/kgate.pub\n"
      "  kgate audit out/*.json --trust ci/keys/\n"
      "  kgate audit out/r.json --json | jq .ok\n"));
  sc->callback([o, &action] { action = [o]() -> int { return run_audit(*o); }; });
}

}  // namespace kgate::cli
