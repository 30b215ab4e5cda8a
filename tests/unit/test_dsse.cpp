// DSSE v1 envelopes: base64 (RFC 4648 vectors), PAE (the DSSE protocol's published example),
// Ed25519 (RFC 8032 section 7.1 keys), and the envelope kgate writes and decodes.
#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <filesystem>

#include "harness/core/crypto.hpp"
#include "harness/core/dsse.hpp"
#include "harness/core/fileio.hpp"

using namespace kgate;

namespace {

// RFC 8032 section 7.1 TEST 1 and TEST 2 secret keys as PKCS#8 PEM.
constexpr const char* kTest1Key =
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n-----END PRIVATE "
    "KEY-----\n";
constexpr const char* kTest2Key =
    "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIEzNCJso/5banbbDRuwRTg9bijGfNaumJNqM9u1PuKb7\n-----END PRIVATE "
    "KEY-----\n";

std::string hex_of(const std::string& bytes) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (unsigned char c : bytes) s += {d[c >> 4], d[c & 15]};
  return s;
}

class DsseKeys : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_temp_dir("kgate_dsse_");
    write_file_atomic(key1(), kTest1Key);
    write_file_atomic(key2(), kTest2Key);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string key1() const { return (dir_ / "t1.key").string(); }
  std::string key2() const { return (dir_ / "t2.key").string(); }
  std::filesystem::path dir_;
};

}  // namespace

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> v[] = {{"", ""},
                                                   {"f", "Zg=="},
                                                   {"fo", "Zm8="},
                                                   {"foo", "Zm9v"},
                                                   {"foob", "Zm9vYg=="},
                                                   {"fooba", "Zm9vYmE="},
                                                   {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, enc] : v) {
    EXPECT_EQ(base64_encode(plain), enc);
    EXPECT_EQ(base64_decode(enc), std::optional<std::string>(plain)) << enc;
  }
}

TEST(Base64, EveryByteRoundTripsAndTheStandardAlphabetIsUsed) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n <= all.size(); n += 37)
    EXPECT_EQ(base64_decode(base64_encode(all.substr(0, n))), all.substr(0, n));
  EXPECT_EQ(base64_encode("\xfb\xff\xbf"), "+/+/");
}

TEST(Base64, OnlyTheCanonicalSpellingDecodes) {
  for (const char* bad : {"Zg=", "Zg", "Zh==", "Zm9=", "Zm9v\n", " Zm9v", "Zm-v", "Zm_v", "Z===", "====", "=Zm9",
                          "Zg==Zg==", "Zm9vY===", "Zm\x80v"})
    EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
}

TEST(Dsse, PaeMatchesTheProtocolsPublishedExample) {
  // DSSE protocol.md, "Test Vectors".
  EXPECT_EQ(dsse_pae("http://example.com/HelloWorld", "hello world"),
            "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  // LEN counts bytes (not characters) and an empty body keeps its separating space.
  EXPECT_EQ(dsse_pae("application/vnd.ex\xc3\xa4mple+json", ""), "DSSEv1 29 application/vnd.ex\xc3\xa4mple+json 0 ");
  EXPECT_EQ(dsse_pae(std::string_view("a\0b", 3), "x"), std::string("DSSEv1 3 a\0b 1 x", 16));
}

TEST_F(DsseKeys, Ed25519MatchesRfc8032) {
  std::string pem = SigningKey::load(key1()).public_pem();
  EXPECT_EQ(hex_of(ed25519_raw_public_key(pem)), "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  EXPECT_EQ(hex_of(SigningKey::load(key1()).sign("")),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f059"
            "5bbe24655141438e7a100b");
  EXPECT_EQ(hex_of(SigningKey::load(key2()).sign("\x72")),
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4"
            "302aeeb00d291612bb0c00");
  EXPECT_EQ(dsse_keyid(pem), sha256_hex(ed25519_raw_public_key(pem)));
  EXPECT_EQ(dsse_keyid(pem), "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9");
  EXPECT_EQ(dsse_keyid("not a key"), "");
}

TEST_F(DsseKeys, EnvelopeIsTheStandardFormAndVerifies) {
  const std::string payload = R"({"_type":"https://in-toto.io/Statement/v1"})";
  json env = dsse_sign_ed25519(kInTotoPayloadType, payload, SigningKey::load(key1()));
  std::string pem = SigningKey::load(key1()).public_pem();
  // Ed25519 is deterministic: the signature pyca/cryptography computes for TEST 1's key over
  // PAE("application/vnd.in-toto+json", payload).
  json want = {
      {"payloadType", "application/vnd.in-toto+json"},
      {"payload", "eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ=="},
      {"signatures",
       json::array({json{
           {"keyid", dsse_keyid(pem)},
           {"sig", "2WAfaHm5jluo0w+0rk8uVkluELJYWjSmU9x7EUzx+AyteDGJ4/nqyJXfmAUVFIAoQafWm7AxBZNw5M9ixNHiCA=="}}})}};
  EXPECT_EQ(env, want);
  std::string why;
  auto e = dsse_decode(env, why);
  ASSERT_TRUE(e) << why;
  EXPECT_EQ(e->payload, payload);
  EXPECT_EQ(e->payload_type, kInTotoPayloadType);
  EXPECT_TRUE(dsse_verify_ed25519(*e, pem));
  EXPECT_FALSE(dsse_verify_ed25519(*e, SigningKey::load(key2()).public_pem()));  // another key
  EXPECT_FALSE(dsse_verify_ed25519(*e, "not a key"));
  DsseEnvelope t = *e;
  t.payload += " ";
  EXPECT_FALSE(dsse_verify_ed25519(t, pem));  // another payload
  t = *e;
  t.payload_type = "application/json";
  EXPECT_FALSE(dsse_verify_ed25519(t, pem));  // the type is signed too
  t = *e;
  t.sig[5] ^= 1;
  EXPECT_FALSE(dsse_verify_ed25519(t, pem));
  t.sig.pop_back();
  EXPECT_FALSE(dsse_verify_ed25519(t, pem));
}

TEST_F(DsseKeys, DecodeAcceptsOnlyTheFormKgateWrites) {
  json env = dsse_sign_ed25519(kInTotoPayloadType, "{}", SigningKey::load(key1()));
  std::string why;
  ASSERT_TRUE(dsse_decode(env, why));
  auto rejected = [&](const std::function<void(json&)>& edit) {
    json t = env;
    edit(t);
    std::string w;
    return !dsse_decode(t, w) && !w.empty();
  };
  EXPECT_TRUE(rejected([](json& j) { j["extra"] = 1; }));
  EXPECT_TRUE(rejected([](json& j) { j.erase("payloadType"); }));
  EXPECT_TRUE(rejected([](json& j) { j["payload"] = 5; }));
  EXPECT_TRUE(rejected([](json& j) { j["signatures"] = json::array(); }));
  EXPECT_TRUE(rejected([](json& j) { j["signatures"].push_back(j["signatures"][0]); }));
  EXPECT_TRUE(rejected([](json& j) { j["signatures"][0].erase("keyid"); }));
  EXPECT_TRUE(rejected([](json& j) { j["signatures"][0]["note"] = "x"; }));
  EXPECT_TRUE(rejected([](json& j) { j["signatures"] = j["signatures"][0]; }));
  EXPECT_TRUE(rejected([](json& j) { j["payload"] = "e30"; }));  // unpadded
  EXPECT_TRUE(rejected([](json& j) {  // URL-safe alphabet: a second spelling of the same signature
    std::string s = j["signatures"][0]["sig"];
    for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
    j["signatures"][0]["sig"] = s == j["signatures"][0]["sig"] ? "-" + s.substr(1) : s;
  }));
  EXPECT_TRUE(rejected([](json& j) { j = json::array(); }));
}
