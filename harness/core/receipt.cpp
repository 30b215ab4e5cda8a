#include "harness/core/receipt.hpp"

#include <filesystem>
#include <set>

#include "harness/core/audit_facts.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/dsse.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/json_io.hpp"
#include "harness/core/text.hpp"
#include "harness/core/verdicts.hpp"

namespace kgate {

// Every object of the envelope has exactly these keys: nothing unsealed can ride along.
static bool exact_keys(const json& j, std::initializer_list<const char*> keys) {
  if (!j.is_object() || j.size() != keys.size()) return false;
  for (const char* k : keys)
    if (!j.contains(k)) return false;
  return true;
}

std::string row_digest(const json& row) { return sha256_hex(canonicalize(row)); }

json seal_receipt(const json& body, const std::optional<SigningKey>& sign_key) {
  json seal;
  seal["canonicalization"] = "RFC8785";
  seal["algorithm"] = "sha256";
  std::string digest = sha256_hex(canonicalize(body));
  seal["body_sha256"] = digest;
  json rows = json::object();
  // Tolerant of any body (tests reseal forged ones); kgate's own bodies always have rows with ids.
  const json* pred = body.is_object() && body.contains("predicate") ? &body["predicate"] : nullptr;
  if (pred && pred->is_object() && pred->contains("rows") && (*pred)["rows"].is_array())
    for (const auto& r : (*pred)["rows"])
      if (r.is_object() && r.contains("id") && r["id"].is_string()) rows[r["id"].get<std::string>()] = row_digest(r);
  seal["row_sha256"] = rows;
  if (sign_key) {
    // A DSSE envelope whose payload is the body's canonical bytes (those body_sha256 digests).
    seal["signature"] = {{"dsse", dsse_sign_ed25519(kInTotoPayloadType, canonicalize(body), *sign_key)},
                         {"public_key_pem", sign_key->public_pem()}};
  } else {
    seal["signature"] = nullptr;
  }
  return json{{"schema", kReceiptSchema}, {"body", body}, {"seal", seal}};
}

std::string facts_digest(const json& pred) {
  // Per row, in order, its recorded facts (what was asked and what the check found); every
  // other field of a row is derived from the samples and recomputed by audit.
  json ids = json::array();
  for (const auto& r : pred.at("rows")) {
    json facts = json::object();
    for (const char* k :
         {"id", "family", "params", "tags", "tolerance", "correctness", "config", "disposition", "error", "work"})
      facts[k] = r.contains(k) ? r[k] : json("(absent)");
    if (r.contains("refused")) facts["refused"] = r["refused"];  // only rows with a refused baseline have one
    if (r.contains("proof")) facts["proof"] = r["proof"];        // receipts before the timed-call proof have none
    ids.push_back(facts);
  }
  json bound = {{"tool", pred.at("tool")},
                {"backend", pred.at("backend")},
                {"timer", pred.at("timer")},
                {"environment", pred.at("environment")},
                {"protocol", pred.at("protocol")},
                {"cases", pred.at("cases")},
                {"arms", pred.at("arms")},
                {"policy", pred.at("policy")},
                {"rows", ids},
                {"run", pred.at("run")}};
  return sha256_hex(canonicalize(bound));
}

std::string receipt_bytes(const json& receipt) { return canonicalize(receipt) + "\n"; }

std::string sidecar_path_of(const std::string& receipt_path, const json& receipt) {
  const std::string name = receipt.at("body").at("predicate").at("samples").at("path").get<std::string>();
  return (std::filesystem::path(receipt_path).parent_path() / name).string();
}

namespace {

// protocol.launch, where recorded (receipts from before it launched directly): a mode kgate has,
// and a graph only where the backend has CUDA graphs.
void check_launch_fact(const json& pred) {
  const json& proto = pred.at("protocol");
  if (!proto.is_object() || !proto.contains("launch")) return;
  const json& launch = proto["launch"];
  if (launch != "direct" && launch != "graph")
    throw AuditError("field 'protocol.launch': " + printable(launch.dump()) + " is not \"direct\" or \"graph\"");
  if (launch == "graph" && pred.at("backend") != "cuda")
    throw AuditError("field 'protocol.launch': \"graph\" on backend " + printable(pred.at("backend").dump()) +
                     ", which launches every call directly");
}

// What a receipt's rows are derived with: the device's maximum clock and the arms' declared
// kernel names, read (with their shape checked) from the predicate.
DeriveContext derive_context(const json& pred) {
  check_launch_fact(pred);
  DeriveContext ctx;
  const json& env = pred.at("environment");
  if (!env.is_object()) throw AuditError("field 'environment': not an object");
  if (env.contains("gpus") && env["gpus"].is_array() && !env["gpus"].empty()) {
    const json& g = env["gpus"][0];
    if (g.is_object() && g.contains("max_sm_clock_mhz")) {
      if (!g["max_sm_clock_mhz"].is_number())
        throw AuditError("field 'environment.gpus[0].max_sm_clock_mhz': not a number");
      ctx.max_sm_clock_mhz = g["max_sm_clock_mhz"].get<double>();
    }
  }
  const json& proto = pred.at("protocol");
  ctx.interval = interval_spec_from_json(proto);
  if (!proto.contains("blocks") || !proto["blocks"].is_number_integer() || proto["blocks"].get<int64_t>() < 1 ||
      proto["blocks"].get<int64_t>() > 1000000)
    throw AuditError("field 'protocol.blocks': not an integer in [1, 1e6]");
  if (!proto.contains("seed") || !proto["seed"].is_number_unsigned())
    throw AuditError("field 'protocol.seed': not an unsigned integer");
  ctx.blocks = static_cast<int>(proto["blocks"].get<int64_t>());
  ctx.seed = proto["seed"].get<uint64_t>();
  const json& arms = pred.at("arms");
  if (!arms.is_array()) throw AuditError("field 'arms': not an array");
  for (const auto& a : arms) {
    if (!a.is_object() || !a.contains("name") || !a["name"].is_string() || !a.contains("kernel_names") ||
        !a["kernel_names"].is_array())
      throw AuditError("field 'arms': an entry lacks a string 'name' or an array 'kernel_names'");
    std::vector<std::string> names;
    for (const auto& n : a["kernel_names"]) {
      if (!n.is_string()) throw AuditError("field 'arms': a kernel name is not a string");
      names.push_back(n.get<std::string>());
    }
    ctx.declared_kernels[a["name"].get<std::string>()] = std::move(names);
  }
  return ctx;
}

// Recomputes every derived field of every row and the summary; each difference is a problem.
void rederive(const json& pred, const json& samples, const std::function<void(const std::string&)>& bad) {
  Policy pol;
  try {
    pol = Policy::from_json(pred.at("policy"), "receipt policy");
  } catch (const InputError& e) {
    bad(e.what());
    return;
  }
  const DeriveContext ctx = derive_context(pred);
  const json& rows = pred.at("rows");
  const json& srows = samples.at("rows");
  if (!rows.is_array() || !srows.is_object()) throw AuditError("rows or the sidecar's rows have the wrong type");
  std::vector<RowRecord> records;
  std::set<std::string> ids;
  for (const auto& row : rows) {
    RowRecord rec;
    try {
      rec = row_record_from_json(row);
    } catch (const AuditError& e) {
      bad(e.what());
      continue;
    }
    if (!ids.insert(rec.id).second) bad("row " + quoted(rec.id) + ": listed twice");
    if (canonicalize(to_json(rec)) != canonicalize(row))
      bad("row " + quoted(rec.id) + ": has fields kgate does not write");
    // A run goes past a baseline's refusal only where its policy accepts it: any other refusal
    // makes the row not_supported, so a refusal the recorded policy does not accept is forged.
    for (const auto& [arm, why] : rec.refused)
      if (!pol.accepts_refusal(arm))
        bad("row " + quoted(rec.id) + ": " + quoted(arm) +
            " refused the row, but the recorded policy does not accept "
            "its refusal (kgate records such a row not_supported)");
    std::optional<RowSamples> rs;
    try {
      if (srows.contains(rec.id)) rs = row_samples_from_json(srows[rec.id], rec.id);
      RowRecord again = rec;
      derive_row(again, rs ? &*rs : nullptr, pol, ctx);
      const json want = to_json(again);
      for (auto it = want.begin(); it != want.end(); ++it)
        if (canonicalize(it.value()) != canonicalize(row.at(it.key())))
          bad("row " + quoted(rec.id) + ": field " + quoted(it.key()) +
              " differs from what its samples and policy give");
      // An optional derived field (cross_device_us, activity_us) the samples do not give.
      for (auto it = row.begin(); it != row.end(); ++it)
        if (!want.contains(it.key()))
          bad("row " + quoted(rec.id) + ": field " + quoted(it.key()) + " is not supported by its samples");
    } catch (const AuditError& e) {
      bad(e.what());
    }
    records.push_back(std::move(rec));
  }
  for (auto it = srows.begin(); it != srows.end(); ++it)
    if (!ids.count(it.key())) bad("sidecar holds samples of a row the receipt does not list: " + quoted(it.key()));
  if (records.size() == rows.size() &&
      canonicalize(to_json(derive_summary(records))) != canonicalize(pred.at("summary")))
    bad("summary differs from what the rows give");
}

// What audit reports a problem through: each call is one line of the result.
using Bad = std::function<void(const std::string&)>;

// The receipt file parsed, or nullopt (the problem said) when it is unreadable, not JSON or
// cannot be canonicalized; a file that is not its own canonical form is a problem but is read on.
std::optional<json> read_receipt(const std::string& path, const Bad& bad) {
  std::string bytes;
  try {
    bytes = read_file(path);
  } catch (const InputError& e) {
    bad(e.what());
    return std::nullopt;
  }
  std::string why;
  std::optional<json> parsed = parse_json_checked(bytes, why);  // bounded nesting: never a stack overflow
  if (!parsed) {
    bad("not valid JSON: " + why);
    return std::nullopt;
  }
  try {
    if (receipt_bytes(*parsed) != bytes)
      bad("file is not the RFC 8785 canonical form of its content (edited by hand?)");
  } catch (const std::exception& e) {
    bad(std::string("cannot canonicalize: ") + e.what());
    return std::nullopt;
  }
  return parsed;
}

// The envelope: exactly the keys kgate writes, the body's sealed digest, an in-toto Statement
// with kgate's predicate. False where nothing past the problem is what was sealed.
bool check_envelope(const json& r, const Bad& bad) {
  if (!exact_keys(r, {"schema", "body", "seal"})) {
    bad("receipt must have exactly the keys schema, body, seal");
    return false;
  }
  if (r.value("schema", "") != kReceiptSchema) bad("schema is not " + std::string(kReceiptSchema));
  const json& seal = r.at("seal");
  if (!exact_keys(seal, {"canonicalization", "algorithm", "body_sha256", "row_sha256", "signature"})) {
    bad("seal has missing or extra keys");
    return false;
  }
  const json& body = r.at("body");
  if (seal.at("canonicalization") != "RFC8785" || seal.at("algorithm") != "sha256")
    bad("seal names an unsupported canonicalization or algorithm");
  std::string digest = sha256_hex(canonicalize(body));
  if (seal.at("body_sha256") != digest) {
    // Nothing past this point is what was sealed: report the mismatch, derive nothing from it.
    bad("body digest mismatch: sealed " + seal["body_sha256"].dump().substr(0, 80) + ", recomputed \"" + digest + "\"");
    return false;
  }
  if (!exact_keys(body, {"_type", "subject", "predicateType", "predicate"}) || !body["predicate"].is_object() ||
      !body["subject"].is_array() || body["_type"] != "https://in-toto.io/Statement/v1" ||
      body["predicateType"] != kPredicateType) {
    bad("body is not an in-toto Statement v1 with kgate's predicate type, a subject list and a predicate");
    return false;
  }
  return true;
}

// Every row's digest against the seal's. False when the rows or the digests are not of a shape
// to compare.
bool check_row_digests(const json& pred, const json& seal, const Bad& bad) {
  const json& rows = pred.at("rows");
  const json& rd = seal.at("row_sha256");
  if (!rows.is_array() || !rd.is_object()) {
    bad("rows or the seal's row digests have the wrong type");
    return false;
  }
  if (rd.size() != rows.size())
    bad("seal lists " + std::to_string(rd.size()) + " row digests for " + std::to_string(rows.size()) + " rows");
  for (const auto& row : rows) {
    std::string id = row.is_object() && row.contains("id") && row["id"].is_string() ? row["id"].get<std::string>() : "";
    if (id.empty() || !rd.contains(id) || rd[id] != row_digest(row)) bad("row " + quoted(id) + ": digest mismatch");
  }
  return true;
}

// A DSSE envelope of exactly this body, its key id and signature those of `pem`.
void check_dsse(const json& dsse, const json& body, const std::string& pem, const Bad& bad) {
  std::string why;
  std::optional<DsseEnvelope> env = dsse_decode(dsse, why);
  if (!env) return bad(why);
  if (env->payload_type != kInTotoPayloadType) bad("DSSE payloadType is not " + std::string(kInTotoPayloadType));
  if (env->payload != canonicalize(body)) bad("DSSE payload is not this receipt's body");
  if (env->keyid != dsse_keyid(pem)) bad("DSSE keyid is not the SHA-256 of the signature's raw public key");
  if (!dsse_verify_ed25519(*env, pem)) bad("DSSE Ed25519 signature does not verify with the signature's public key");
}

// seal.signature: null (then --pubkey is refused), or {dsse, public_key_pem} in the one spelling
// kgate writes. The envelope is checked against the key it carries, which anyone can replace:
// only a --pubkey that equals that key makes the signature verified (res.signature_verified).
void check_signature(const json& seal, const json& body, const std::optional<std::string>& pubkey_path,
                     AuditResult& res, const Bad& bad) {
  const json& sig = seal.at("signature");
  if (sig.is_null()) {
    if (pubkey_path) bad("--pubkey given but the receipt is not signed");
    return;
  }
  if (!exact_keys(sig, {"dsse", "public_key_pem"}) || !sig.at("public_key_pem").is_string())
    return bad("signature block is not {dsse, public_key_pem}, the form kgate writes");
  std::string pem = sig.at("public_key_pem");
  if (ed25519_canonical_public_pem(pem) != pem) bad("signature public key is not a canonical Ed25519 PEM");
  res.signer_keyid = dsse_keyid(pem);
  const size_t before = res.problems.size();
  if (pubkey_path) {
    std::string want = read_file(*pubkey_path);
    if (want != pem)
      bad("signed by key " + res.signer_keyid + ", not by --pubkey " + printable(*pubkey_path) + " (key " +
          dsse_keyid(want) + ")");
  }
  check_dsse(sig.at("dsse"), body, pem, bad);
  res.signature_verified = pubkey_path && res.problems.size() == before;
}

// The sidecar's file name as predicate.samples records it, or "" (the problem said) unless it
// names a file beside the receipt with a digest.
std::string sidecar_name(const json& pred, const Bad& bad) {
  const json& sc = pred.at("samples");
  if (!sc.is_object() || !sc.contains("path") || !sc["path"].is_string() || !sc.contains("sha256")) {
    bad("field 'samples': missing path or sha256");
    return "";
  }
  const std::string name = sc["path"].get<std::string>();
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
    bad("samples sidecar path must be a file name beside the receipt");
    return "";
  }
  return name;
}

// The sidecar as read: `accepted` when its digest, schema and facts digest are the receipt's;
// `rederive` when its samples are of the schema to re-derive the rows from (a facts digest that
// cannot be computed leaves that to the re-derivation, which names what is missing).
struct Sidecar {
  json samples;
  bool rederive = false, accepted = false;
};
Sidecar read_sidecar(const std::string& sc_path, const json& pred, const Bad& bad) {
  Sidecar out;
  try {
    std::string sb = read_file(sc_path);
    std::string why;
    if (json(sha256_hex(sb)) != pred.at("samples").at("sha256")) {
      bad("samples sidecar " + printable(sc_path) + ": digest mismatch");
    } else if (std::optional<json> sj = parse_json_checked(sb, why); !sj) {
      bad("samples sidecar " + printable(sc_path) + ": not valid JSON: " + why);
    } else {
      out.samples = std::move(*sj);
      out.rederive =
          out.samples.is_object() && out.samples.value("schema", "") == kSamplesSchema && out.samples.contains("rows");
      if (!out.rederive) {
        bad("samples sidecar " + printable(sc_path) + ": wrong schema");
      } else if (out.samples.value("facts_sha256", "") != facts_digest(pred)) {
        bad("samples sidecar " + printable(sc_path) +
            ": made for another run (facts digest differs: environment, "
            "protocol, arms, policy, a row's recorded facts or the row order edited)");
        out.rederive = false;
      } else {
        out.accepted = true;
      }
    }
  } catch (const std::exception& e) {
    bad(std::string("samples sidecar: ") + e.what());
  }
  return out;
}

// Every subject is a name and a sha256 (what each must be is audit_facts' to check).
void check_subject_shapes(const json& body, const Bad& bad) {
  for (const auto& s : body.at("subject"))
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || !s.contains("digest") ||
        !s["digest"].is_object() || !s["digest"].contains("sha256") || !s["digest"]["sha256"].is_string()) {
      bad("a subject lacks its name or sha256 digest");
      return;
    }
}

// Everything past the envelope: row digests, signature, sidecar, subjects, then every derived
// field from the samples. False where the audit stops early (the receipt is not returned).
bool audit_sealed(const json& r, const std::string& path, const std::optional<std::string>& pubkey_path,
                  AuditResult& res, const Bad& bad) {
  if (!check_envelope(r, bad)) return false;
  const json& seal = r.at("seal");
  const json& body = r.at("body");
  const json& pred = body.at("predicate");
  if (!check_row_digests(pred, seal, bad)) return false;
  check_signature(seal, body, pubkey_path, res, bad);
  // The sidecar: its digest is a subject; it is bound to this body by the facts digest; every
  // statistic is recomputed from it.
  const std::string sc_name = sidecar_name(pred, bad);
  if (sc_name.empty()) return false;
  Sidecar sc = read_sidecar((std::filesystem::path(path).parent_path() / sc_name).string(), pred, bad);
  if (sc.accepted) res.samples = sc.samples;
  check_subject_shapes(body, bad);
  if (sc.rederive) rederive(pred, sc.samples, bad);
  check_recorded_facts(body, sc.rederive ? &sc.samples : nullptr, bad);
  return true;
}

}  // namespace

AuditResult audit_receipt(const std::string& path, const std::optional<std::string>& pubkey_path) {
  AuditResult res;
  const Bad bad = [&](const std::string& m) { res.problems.push_back(m); };
  std::optional<json> r = read_receipt(path, bad);
  if (!r) return res;
  try {
    if (!audit_sealed(*r, path, pubkey_path, res, bad)) return res;
  } catch (const std::exception& e) {
    bad("malformed receipt: " + printable(e.what()));
  }
  res.receipt = std::move(*r);
  return res;
}

std::vector<RowRecord> rows_under_policy(const AuditResult& audited, const Policy& policy) {
  const json& pred = audited.receipt.at("body").at("predicate");
  const DeriveContext ctx = derive_context(pred);
  const json& srows = audited.samples.at("rows");
  std::vector<RowRecord> out;
  for (const auto& row : pred.at("rows")) {
    RowRecord rec = row_record_from_json(row);
    std::optional<RowSamples> rs;
    if (srows.contains(rec.id)) rs = row_samples_from_json(srows[rec.id], rec.id);
    derive_row(rec, rs ? &*rs : nullptr, policy, ctx);
    out.push_back(std::move(rec));
  }
  return out;
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
