#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <filesystem>

#include "harness/core/crypto.hpp"
#include "harness/core/dsse.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/numeric.hpp"
#include "harness/core/receipt.hpp"
#include "harness/run/campaign.hpp"

#include <functional>

using namespace kgate;
namespace fs = std::filesystem;

namespace {

class ReceiptTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_temp_dir("kgate_receipt_");
    write_file_atomic((dir_ / "t.json").string(), R"({"table": "t", "family": "ag_gemm", "rows": [
      {"id": "a", "params": {"world_size": 1, "m": 8, "n": 16, "k": 32}, "tags": {"world": "1"}},
      {"id": "b", "params": {"world_size": 2, "m": 4, "n": 16, "k": 32}, "tags": {"world": "2"}}]})");
    ed25519_keygen((dir_ / "k.key").string(), (dir_ / "k.pub").string());
    RunConfig c;
    c.cases_path = (dir_ / "t.json").string();
    c.candidate = "ag_gemm.cpu_eigen";
    c.baselines = {"ag_gemm.cpu_blocked"};
    c.out_path = (dir_ / "r.json").string();
    c.policy = Policy::parse("correct");
    c.schedule = {2, 2, 2, 5};
    c.warmup_min_us = 0;
    c.warmup_min_calls = 1;
    c.quiet = true;
    c.sign_key = (dir_ / "k.key").string();
    auto b = make_cpu_backend();
    run_campaign(c, *b);
    bytes_ = read_file(c.out_path);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string path() { return (dir_ / "r.json").string(); }
  static std::string tampered() { return (dir_ / "x.json").string(); }
  static bool audit_ok(const std::string& bytes) {
    write_file_atomic(tampered(), bytes);
    // The tampered copy shares the original's sidecar name, so copy it alongside.
    return audit_receipt(tampered(), std::nullopt).ok();
  }
  // A forger's reseal: `edit` changes the body and the sidecar's rows, then everything a reader
  // can recompute is: the sidecar's facts digest and SHA-256, its subject, the policy subject,
  // the row and body digests. True when audit accepts the forgery.
  static bool forged_accepted(const std::function<void(json& body, json& sidecar_rows)>& edit) {
    json body = json::parse(bytes_)["body"];
    json sc = json::parse(read_file(sidecar_path_of(path(), json::parse(bytes_))));
    edit(body, sc["rows"]);
    json& pred = body["predicate"];
    sc["facts_sha256"] = facts_digest(pred);
    const std::string sc_bytes = canonicalize(sc) + "\n", old = pred["samples"]["path"];
    pred["samples"] = {{"path", "forged.samples.json"}, {"sha256", sha256_hex(sc_bytes)}};
    for (auto& s : body["subject"]) {
      if (s["name"] == old) s = {{"name", "forged.samples.json"}, {"digest", {{"sha256", sha256_hex(sc_bytes)}}}};
      if (s["name"] == kPolicySubject) s["digest"]["sha256"] = sha256_hex(canonicalize(pred["policy"]));
    }
    write_file_atomic((dir_ / "forged.samples.json").string(), sc_bytes);
    return audit_ok(receipt_bytes(seal_receipt(body, std::nullopt)));
  }
  static inline fs::path dir_;
  static inline std::string bytes_;
};

void collect_leaves(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) collect_leaves(it.value(), at / it.key(), out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) collect_leaves(j[i], at / i, out);
  } else {
    out.push_back(at);
  }
}

}  // namespace

TEST_F(ReceiptTest, FreshReceiptAudits) {
  AuditResult a = audit_receipt(path(), std::nullopt);
  for (const auto& p : a.problems) ADD_FAILURE() << p;
  EXPECT_TRUE(a.ok());
  EXPECT_TRUE(audit_receipt(path(), (dir_ / "k.pub").string()).ok());
  json r = json::parse(bytes_);
  EXPECT_EQ(r["body"]["predicate"]["rows"].size(), 2u);
  EXPECT_EQ(r["body"]["predicate"]["backend"], "cpu");
  EXPECT_EQ(r["body"]["predicate"]["timer"], "host");
  EXPECT_EQ(r["body"]["_type"], "https://in-toto.io/Statement/v1");
  EXPECT_EQ(bytes_, canonicalize(r) + "\n");
}

TEST_F(ReceiptTest, WrongPublicKeyIsRejected) {
  ed25519_keygen((dir_ / "o.key").string(), (dir_ / "o.pub").string());
  AuditResult a = audit_receipt(path(), (dir_ / "o.pub").string());
  ASSERT_EQ(a.problems.size(), 1u);
  EXPECT_NE(a.problems[0].find("not by --pubkey"), std::string::npos) << a.problems[0];
  EXPECT_FALSE(a.signature_verified);
}

// The key a receipt carries is anyone's: its signature is verified only against a key the
// auditor names.
TEST_F(ReceiptTest, ASignatureIsVerifiedOnlyWithTheAuditorsKey) {
  const AuditResult carried = audit_receipt(path(), std::nullopt);
  EXPECT_TRUE(carried.ok());
  EXPECT_EQ(carried.signer_keyid.size(), 64u);
  EXPECT_FALSE(carried.signature_verified);
  const AuditResult named = audit_receipt(path(), (dir_ / "k.pub").string());
  EXPECT_TRUE(named.ok());
  EXPECT_TRUE(named.signature_verified);
  EXPECT_EQ(named.signer_keyid, carried.signer_keyid);
}

// seal.signature is {dsse, public_key_pem}: a DSSE envelope whose payload is exactly the body's
// canonical bytes (those body_sha256 digests), signed over PAE by the embedded key.
TEST_F(ReceiptTest, SignatureIsADsseEnvelopeOfTheBody) {
  json r = json::parse(bytes_);
  const json& sig = r["seal"]["signature"];
  ASSERT_TRUE(sig.is_object());
  EXPECT_EQ(sig.size(), 2u);
  EXPECT_EQ(sig["public_key_pem"], read_file((dir_ / "k.pub").string()));
  std::string why;
  auto env = dsse_decode(sig["dsse"], why);
  ASSERT_TRUE(env) << why;
  EXPECT_EQ(env->payload_type, "application/vnd.in-toto+json");
  EXPECT_EQ(env->payload, canonicalize(r["body"]));
  EXPECT_EQ(sha256_hex(env->payload), r["seal"]["body_sha256"]);
  EXPECT_EQ(env->keyid, sha256_hex(ed25519_raw_public_key(sig["public_key_pem"])));
  EXPECT_TRUE(dsse_verify_ed25519(*env, sig["public_key_pem"]));
}

TEST_F(ReceiptTest, EveryForgedSignatureBlockIsCaught) {
  json r = json::parse(bytes_);
  ed25519_keygen((dir_ / "o2.key").string(), (dir_ / "o2.pub").string());
  const SigningKey k = SigningKey::load((dir_ / "k.key").string()), o = SigningKey::load((dir_ / "o2.key").string());
  auto problems = [&](const std::function<void(json&)>& edit) {
    json t = r;
    edit(t["seal"]["signature"]);
    write_file_atomic(tampered(), receipt_bytes(t));
    std::string all;
    for (const auto& p : audit_receipt(tampered(), std::nullopt).problems) all += p + "\n";
    return all;
  };
  auto caught = [&](const std::string& want, const std::function<void(json&)>& edit) {
    std::string got = problems(edit);
    EXPECT_NE(got.find(want), std::string::npos) << "want '" << want << "', got: " << got;
  };
  json other = r["body"];
  other["predicate"]["rows"].erase(1);
  // Another body, signed by the right key: a valid envelope, but not of this receipt.
  caught("DSSE payload is not this receipt's body",
         [&](json& s) { s["dsse"] = dsse_sign_ed25519(kInTotoPayloadType, canonicalize(other), k); });
  caught("DSSE payloadType is not application/vnd.in-toto+json",
         [&](json& s) { s["dsse"] = dsse_sign_ed25519("application/json", canonicalize(r["body"]), k); });
  // The body signed by another key, the embedded key left as it was.
  caught("does not verify",
         [&](json& s) { s["dsse"] = dsse_sign_ed25519(kInTotoPayloadType, canonicalize(r["body"]), o); });
  caught("DSSE keyid", [&](json& s) { s["dsse"]["signatures"][0]["keyid"] = std::string(64, '0'); });
  caught("does not verify", [&](json& s) {
    std::string sig = *base64_decode(s["dsse"]["signatures"][0]["sig"].get<std::string>());
    sig[0] ^= 1;
    s["dsse"]["signatures"][0]["sig"] = base64_encode(sig);
  });
  caught("base64", [&](json& s) { s["dsse"]["payload"] = s["dsse"]["payload"].get<std::string>() + "="; });
  caught("exactly one signature", [&](json& s) { s["dsse"]["signatures"].push_back(s["dsse"]["signatures"][0]); });
  caught("not a canonical Ed25519 PEM",
         [&](json& s) { s["public_key_pem"] = s["public_key_pem"].get<std::string>() + "\n"; });
  caught("signature block is not", [&](json& s) { s["scheme"] = "ed25519"; });
  caught("signature block is not", [&](json& s) {  // the pre-DSSE form
    s = {{"scheme", "ed25519"},
         {"signed", "body_sha256"},
         {"public_key_pem", s["public_key_pem"]},
         {"signature_hex", "00"}};
  });
  // Key and envelope both replaced: the receipt verifies as signed by that key, so only
  // --pubkey can tell (WrongPublicKeyIsRejected); a consistent re-signature is no problem.
  EXPECT_EQ(problems([&](json& s) {
              s = {{"dsse", dsse_sign_ed25519(kInTotoPayloadType, canonicalize(r["body"]), o)},
                   {"public_key_pem", o.public_pem()}};
            }),
            "");
  EXPECT_EQ(problems([](json&) {}), "");
}

TEST_F(ReceiptTest, EverySingleByteChangeIsCaught) {
  Rng rng(12345);
  int caught = 0;
  for (int i = 0; i < 1000; ++i) {
    std::string b = bytes_;
    size_t pos = rng.below(b.size());
    char c;
    do c = static_cast<char>(rng.below(256));
    while (c == b[pos]);
    b[pos] = c;
    bool ok = audit_ok(b);
    caught += !ok;
    if (ok)
      ADD_FAILURE() << "byte " << pos << " (" << bytes_.substr(pos > 40 ? pos - 40 : 0, 60) << ") -> " << int(c)
                    << " passed audit";
  }
  EXPECT_EQ(caught, 1000);
}

TEST_F(ReceiptTest, EveryValueChangeIsCaughtEvenWhenResealed) {
  json r = json::parse(bytes_);
  std::vector<json::json_pointer> leaves;
  collect_leaves(r["body"], json::json_pointer(), leaves);
  Rng rng(777);
  int caught = 0, caught_resealed = 0, n = 0;
  for (int i = 0; i < 1000; ++i) {
    json t = r;
    const auto& ptr = leaves[rng.below(leaves.size())];
    json& v = t["body"][ptr];
    if (v.is_number())
      v = v.get<double>() * 1.0001 + 1e-9;
    else if (v.is_boolean())
      v = !v.get<bool>();
    else if (v.is_string())
      v = v.get<std::string>() + "x";
    else
      v = 0;
    ++n;
    caught += !audit_ok(receipt_bytes(t));
    // An attacker who also recomputes the seal: digests match, so only the recomputation
    // of statistics, verdicts and summary (or the subject digests) can catch it.
    json resealed = seal_receipt(t["body"], std::nullopt);
    bool ok = audit_ok(receipt_bytes(resealed));
    if (!ok)
      ++caught_resealed;
    else {
      // Fields that are recorded facts (not derivable) may change undetected once resealed;
      // those must not be numbers the verdicts or summary depend on.
      std::string s = ptr.to_string();
      EXPECT_TRUE(s.find("/verdicts") == std::string::npos && s.find("_stats") == std::string::npos &&
                  s.find("/ratio") == std::string::npos && s.find("/summary") == std::string::npos &&
                  s.find("/drift") == std::string::npos)
          << "resealed change to a derived field passed audit: " << s;
    }
  }
  EXPECT_EQ(caught, n);
  EXPECT_GT(caught_resealed, 0);
}

namespace {
// Every object key under `j`, as the pointer to its parent and the key.
void collect_keys(const json& j, const json::json_pointer& at,
                  std::vector<std::pair<json::json_pointer, std::string>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      out.push_back({at, it.key()});
      collect_keys(it.value(), at / it.key(), out);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) collect_keys(j[i], at / i, out);
  }
}
}  // namespace

TEST_F(ReceiptTest, EveryRenamedKeyIsCaughtAndNeverCrashesTheAuditor) {
  // The receipt is validated into typed records before anything is derived from it, so a key
  // renamed anywhere in the body (then resealed, so the digests match) is a reported problem,
  // never a read of a missing key (undefined behaviour in a release build: the old SEGV).
  json r = json::parse(bytes_);
  std::vector<std::pair<json::json_pointer, std::string>> keys;
  collect_keys(r["body"], json::json_pointer(), keys);
  ASSERT_GT(keys.size(), 100u);
  for (const auto& [parent, key] : keys) {
    json t = r;
    json& obj = t["body"].at(parent);
    ASSERT_TRUE(obj.is_object()) << parent.to_string() << " " << key;
    obj[key + "_renamed"] = obj[key];
    obj.erase(key);
    json resealed = seal_receipt(t["body"], std::nullopt);
    EXPECT_FALSE(audit_ok(receipt_bytes(resealed)))
        << "renamed " << parent.to_string() << "/" << key << " passed audit";
  }
}

TEST_F(ReceiptTest, ResealedForgeriesOfBoundFieldsAreCaught) {
  // Fields no statistic is derived from are bound to the sidecar by the plan digest and the
  // policy subject: editing them and resealing the body no longer matches the sidecar.
  json r = json::parse(bytes_);
  auto forged = [&](const std::function<void(json&)>& edit) {
    json t = r;
    edit(t["body"]["predicate"]);
    return audit_ok(receipt_bytes(seal_receipt(t["body"], std::nullopt)));
  };
  EXPECT_FALSE(forged([](json& p) { p["environment"]["cpu"] = "a faster CPU"; }));
  EXPECT_FALSE(forged([](json& p) { p["protocol"]["warmup_min_calls"] = 100; }));
  EXPECT_FALSE(forged([](json& p) {  // the policy swapped for one with no gates: every row passes
    p["policy"] = Policy::parse("correct").to_json();
    p["policy"]["gates"] = json::array();
    for (auto& row : p["rows"])
      row["verdicts"] = {{"raw", row["verdicts"]["raw"]}, {"policy", true}, {"failed", json::array()}};
    p["summary"]["policy_passed"] = p["rows"].size();
    p["summary"]["policy_failed"] = 0;
    p["summary"]["gate_failures"] = json::object();
  }));
  EXPECT_FALSE(forged([](json& p) { std::swap(p["rows"][0], p["rows"][1]); }));
  // Optional derived fields a row's samples do not give (this CPU run has no activity records and
  // one rank): written into a row, resealed, they are caught.
  const json one = {{"median", 1.0}, {"min", 1.0}, {"max", 1.0}, {"n", 8}};
  EXPECT_FALSE(forged([&](json& p) {
    p["rows"][0]["activity_us"] = {{"ag_gemm.cpu_eigen", {{"forged_kernel", one}}}};
  }));
  EXPECT_FALSE(forged([&](json& p) { p["rows"][0]["activity_us"] = json::object(); }));
  EXPECT_FALSE(forged([&](json& p) { p["rows"][0]["cross_device_us"] = {{"ag_gemm.cpu_eigen", one}}; }));
  EXPECT_TRUE(forged([](json&) {}));  // the untouched body, resealed, still audits
}

// The ratio's interval is derived from the samples: audit recomputes it, so a resealed edit
// of a bound, of the recorded method or level, or of the strict verdict it gives is caught.
TEST_F(ReceiptTest, TheRatioIntervalIsRecomputedAndTamperingWithItIsCaught) {
  json r = json::parse(bytes_);
  const json& pr = r["body"]["predicate"]["rows"][0]["pairs"][0];
  ASSERT_TRUE(pr["ratio_ci"].is_object()) << pr.dump();
  EXPECT_LE(pr["ratio_ci"]["lo"].get<double>(), pr["ratio"].get<double>());
  EXPECT_GE(pr["ratio_ci"]["hi"].get<double>(), pr["ratio"].get<double>());
  EXPECT_EQ(r["body"]["predicate"]["protocol"]["interval"]["level"], 0.99);
  auto problems = [&](const std::function<void(json&)>& edit) {
    json t = r;
    edit(t["body"]["predicate"]);
    write_file_atomic(tampered(), receipt_bytes(seal_receipt(t["body"], std::nullopt)));
    std::string all;
    for (const auto& p : audit_receipt(tampered(), std::nullopt).problems) all += p + "\n";
    return all;
  };
  EXPECT_NE(problems([](json& p) { p["rows"][0]["pairs"][0]["ratio_ci"]["lo"] = 1.5; }).find("field 'pairs' differs"),
            std::string::npos);
  EXPECT_NE(problems([](json& p) { p["rows"][0]["pairs"][0]["ratio_ci"] = nullptr; }), "");
  EXPECT_NE(problems([](json& p) { p["protocol"]["interval"]["level"] = 0.5; }), "");
  EXPECT_NE(problems([](json& p) { p["protocol"]["interval"]["resamples"] = 10; }), "");
  EXPECT_NE(problems([](json& p) {
              json& v = p["rows"][0]["verdicts"]["raw"]["strict"];
              v = !v.get<bool>();
            }),
            "");
  EXPECT_EQ(problems([](json&) {}), "");
}

TEST_F(ReceiptTest, SidecarTamperIsCaught) {
  std::string sc = sidecar_path_of(path(), json::parse(bytes_));
  std::string orig = read_file(sc);
  std::string t = orig;
  size_t p = t.find_first_of("123456789", t.find("\"rows\""));
  t[p] = t[p] == '9' ? '8' : static_cast<char>(t[p] + 1);
  write_file_atomic(sc, t);
  EXPECT_FALSE(audit_receipt(path(), std::nullopt).ok());
  fs::remove(sc);
  EXPECT_FALSE(audit_receipt(path(), std::nullopt).ok());
  write_file_atomic(sc, orig);
  EXPECT_TRUE(audit_receipt(path(), std::nullopt).ok());
}

// Forgeries resealed with the sidecar rewritten to match: every digest agrees, so only the
// recorded facts' consistency (audit_facts.hpp) can expose them.
TEST_F(ReceiptTest, ResealedForgeriesThatARecordedFactExposesAreCaught) {
  using Edit = std::function<void(json&, json&)>;
  EXPECT_TRUE(forged_accepted([](json&, json&) {}));  // the reseal itself is exact
  const std::vector<std::pair<const char*, Edit>> forgeries = {
      {"protocol.m", [](json& b, json&) { b["predicate"]["protocol"]["m"] = 1; }},
      {"protocol.groups", [](json& b, json&) { b["predicate"]["protocol"]["groups"] = 3; }},
      {"protocol.timer", [](json& b, json&) { b["predicate"]["protocol"]["timer"] = "cupti"; }},
      {"run.units", [](json& b, json&) { b["predicate"]["run"]["units"] = 5; }},
      {"cases.sha256", [](json& b, json&) { b["predicate"]["cases"]["sha256"] = std::string(64, 'a'); }},
      {"row family", [](json& b, json&) { b["predicate"]["rows"][0]["family"] = "ssu"; }},
      {"passed with mismatches",
       [](json& b, json&) { b["predicate"]["rows"][0]["correctness"][0]["mismatches"] = 5000; }},
      {"passed with unwritten", [](json& b, json&) { b["predicate"]["rows"][0]["correctness"][1]["unwritten"] = 1; }},
      {"a check dropped", [](json& b, json&) { b["predicate"]["rows"][0]["correctness"].erase(1); }},
      {"config of no arm", [](json& b, json&) { b["predicate"]["rows"][0]["config"]["x.y"] = json::object(); }},
      {"pair's candidate",
       [](json& b, json&) { b["predicate"]["rows"][0]["pairs"][0]["candidate"] = "ag_gemm.cpu_blocked"; }},
      {"arm's backend", [](json& b, json&) { b["predicate"]["arms"][0]["backend"] = "cuda"; }},
      {"two candidates", [](json& b, json&) { b["predicate"]["arms"][1]["role"] = "candidate"; }},
      {"subject dropped", [](json& b, json&) { b["subject"].erase(2); }},
      {"subject added",
       [](json& b, json&) {
         b["subject"].push_back({{"name", "x.cu"}, {"digest", {{"sha256", std::string(64, 'b')}}}});
       }},
      {"a source dropped from every arm",
       [](json& b, json&) {
         const json path = b["predicate"]["arms"][0]["sources"][0]["path"];
         for (auto& arm : b["predicate"]["arms"]) {
           json kept = json::array();
           for (const auto& s : arm["sources"])
             if (s["path"] != path) kept.push_back(s);
           arm["sources"] = kept;
         }
       }},
      {"binary subject", [](json& b, json&) { b["subject"][0]["digest"]["sha256"] = std::string(64, 'c'); }},
      {"samples of a group dropped",
       [](json& b, json& rows) {
         const std::string id = b["predicate"]["rows"][0]["id"];
         for (auto& side : {"baseline", "candidate"}) rows[id]["pairs"][0][side].erase(0);
         b["predicate"]["protocol"]["groups"] = 1;
       }},
  };
  for (const auto& [what, edit] : forgeries) EXPECT_FALSE(forged_accepted(edit)) << what;
}
