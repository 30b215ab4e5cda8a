#include "harness/core/receipt.hpp"

#include <filesystem>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/text.hpp"

namespace kgate {

static constexpr const char* kSignedMessage = "body_sha256 (64 lowercase hex characters, ASCII)";

// Every object of the envelope has exactly these keys: nothing unsealed can ride along.
static bool exact_keys(const json& j, std::initializer_list<const char*> keys) {
  if (!j.is_object() || j.size() != keys.size()) return false;
  for (const char* k : keys)
    if (!j.contains(k)) return false;
  return true;
}

std::string row_digest(const json& row) { return sha256_hex(canonicalize(row)); }

json seal_receipt(const json& body, const std::optional<std::string>& sign_key) {
  json seal;
  seal["canonicalization"] = "RFC8785";
  seal["algorithm"] = "sha256";
  std::string digest = sha256_hex(canonicalize(body));
  seal["body_sha256"] = digest;
  json rows = json::object();
  for (const auto& r : body["predicate"]["rows"]) rows[r["id"].get<std::string>()] = row_digest(r);
  seal["row_sha256"] = rows;
  if (sign_key) {
    seal["signature"] = {{"scheme", "ed25519"},
                         {"signed", kSignedMessage},
                         {"public_key_pem", ed25519_public_pem_from_private(*sign_key)},
                         {"signature_hex", ed25519_sign_hex(*sign_key, digest)}};
  } else {
    seal["signature"] = nullptr;
  }
  return json{{"schema", kReceiptSchema}, {"body", body}, {"seal", seal}};
}

std::string receipt_bytes(const json& receipt) { return canonicalize(receipt) + "\n"; }

std::string sidecar_path_for(const std::string& receipt_path) {
  std::string p = receipt_path;
  if (p.size() > 5 && p.substr(p.size() - 5) == ".json") p.resize(p.size() - 5);
  return p + ".samples.json";
}

AuditResult audit_receipt(const std::string& path, const std::optional<std::string>& pubkey_path) {
  AuditResult res;
  auto bad = [&](const std::string& m) { res.problems.push_back(m); };
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const InputError& e) {
    bad(e.what());
    return res;
  }
  std::string why;
  std::optional<json> parsed = parse_json_checked(bytes, why);  // bounded nesting: never a stack overflow
  if (!parsed) {
    bad("not valid JSON: " + why);
    return res;
  }
  json r = std::move(*parsed);
  try {
    if (receipt_bytes(r) != bytes) bad("file is not the RFC 8785 canonical form of its content (edited by hand?)");
  } catch (const std::exception& e) {
    bad(std::string("cannot canonicalize: ") + e.what());
    return res;
  }
  try {
    if (!exact_keys(r, {"schema", "body", "seal"})) bad("receipt must have exactly the keys schema, body, seal");
    if (r.value("schema", "") != kReceiptSchema) bad("schema is not " + std::string(kReceiptSchema));
    if (!exact_keys(r.at("seal"), {"canonicalization", "algorithm", "body_sha256", "row_sha256", "signature"}))
      bad("seal has missing or extra keys");
    const json& body = r.at("body");
    const json& seal = r.at("seal");
    const json& pred = body.at("predicate");
    if (seal.at("canonicalization") != "RFC8785" || seal.at("algorithm") != "sha256")
      bad("seal names an unsupported canonicalization or algorithm");
    std::string digest = sha256_hex(canonicalize(body));
    if (seal.at("body_sha256") != digest) bad("body digest mismatch: sealed " + seal["body_sha256"].dump() + ", recomputed \"" + digest + "\"");
    const json& rows = pred.at("rows");
    const json& rd = seal.at("row_sha256");
    if (rd.size() != rows.size()) bad("seal lists " + std::to_string(rd.size()) + " row digests for " + std::to_string(rows.size()) + " rows");
    for (const auto& row : rows) {
      std::string id = row.at("id");
      if (!rd.contains(id) || rd[id] != row_digest(row)) bad("row " + quoted(id) + ": digest mismatch");
    }
    // Signature.
    const json& sig = seal.at("signature");
    if (!sig.is_null()) {
      std::string pem = sig.at("public_key_pem");
      if (ed25519_canonical_public_pem(pem) != pem) bad("signature public key is not a canonical Ed25519 PEM");
      if (!exact_keys(sig, {"scheme", "signed", "public_key_pem", "signature_hex"}) || sig.at("scheme") != "ed25519" ||
          sig.at("signed") != kSignedMessage)
        bad("signature block is not the ed25519 form kgate writes");
      if (pubkey_path) {
        std::string want = read_file(*pubkey_path);
        if (want != pem) bad("signature key differs from --pubkey " + printable(*pubkey_path));
      }
      if (!ed25519_verify_hex(pem, seal.at("body_sha256").get<std::string>(), sig.at("signature_hex")))
        bad("Ed25519 signature does not verify");
    } else if (pubkey_path) {
      bad("--pubkey given but the receipt is not signed");
    }
    // Sidecar: its digest is a subject; every statistic is recomputed from it.
    const json& sc = pred.at("samples");
    std::string sc_path = (std::filesystem::path(path).parent_path() / sc.at("path").get<std::string>()).string();
    json samples;
    bool sc_ok = false;
    try {
      std::string sb = read_file(sc_path);
      if (sha256_hex(sb) != sc.at("sha256")) bad("samples sidecar " + printable(sc_path) + ": digest mismatch");
      else if (std::optional<json> sj = parse_json_checked(sb, why); !sj) {
        bad("samples sidecar " + printable(sc_path) + ": not valid JSON: " + why);
      } else {
        samples = std::move(*sj);
        sc_ok = samples.is_object() && samples.value("schema", "") == kSamplesSchema;
        if (sc_ok) res.samples = samples;
        if (!sc_ok) bad("samples sidecar " + printable(sc_path) + ": wrong schema");
      }
    } catch (const std::exception& e) {
      bad(std::string("samples sidecar: ") + e.what());
    }
    bool subject_has_samples = false;
    for (const auto& s : body.at("subject"))
      if (s.at("name") == sc.at("path") && s.at("digest").at("sha256") == sc.at("sha256")) subject_has_samples = true;
    if (!subject_has_samples) bad("samples sidecar is not a subject of the statement");
    if (sc_ok) {
      Policy pol = Policy::from_json(pred.at("policy"), "receipt policy");
      for (const auto& row : rows) {
        json again = row;
        std::string id = row.at("id");
        json rs = samples.at("rows").contains(id) ? samples["rows"][id] : json(nullptr);
        if (row.at("disposition") == "passed" && rs.is_null()) {
          bad("row " + quoted(id) + ": no samples in the sidecar");
          continue;
        }
        derive_row(again, rs, pol);
        if (canonicalize(again) != canonicalize(row)) {
          for (auto it = row.begin(); it != row.end(); ++it)
            if (canonicalize(it.value()) != canonicalize(again[it.key()]))
              bad("row " + quoted(id) + ": field " + quoted(it.key()) + " differs from what its samples and policy give");
        }
      }
      if (canonicalize(derive_summary(rows)) != canonicalize(pred.at("summary")))
        bad("summary differs from what the rows give");
    }
  } catch (const std::exception& e) {
    bad("malformed receipt: " + printable(e.what()));
  }
  res.receipt = std::move(r);
  return res;
}

AuditResult load_audited(const std::string& path) {
  if (!file_exists(path)) throw InputError(path + ": no such receipt");
  AuditResult a = audit_receipt(path, std::nullopt);
  if (!a.ok()) {
    std::string m = path + ": audit failed: " + a.problems.front();
    if (a.problems.size() > 1) m += " (and " + std::to_string(a.problems.size() - 1) + " more)";
    throw AuditError(m);
  }
  return a;
}

}  // namespace kgate
