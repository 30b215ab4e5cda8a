#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <filesystem>

#include "harness/core/crypto.hpp"
#include "harness/core/fileio.hpp"

TEST(Crypto, Sha256KnownVectors) {
  EXPECT_EQ(kgate::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(kgate::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Crypto, Ed25519SignVerifyAndReject) {
  auto dir = fresh_temp_dir("kgate_key_");
  std::string priv = (dir / "k.key").string(), pub = (dir / "k.pub").string();
  kgate::ed25519_keygen(priv, pub);
  std::string msg = kgate::sha256_hex("body");
  std::string sig = kgate::ed25519_sign_hex(priv, msg);
  EXPECT_EQ(sig.size(), 128u);
  std::string pem = kgate::read_file(pub);
  EXPECT_EQ(pem, kgate::ed25519_public_pem_from_private(priv));
  EXPECT_TRUE(kgate::ed25519_verify_hex(pem, msg, sig));
  std::string bad = msg;
  bad[0] = bad[0] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(kgate::ed25519_verify_hex(pem, bad, sig));
  std::string badsig = sig;
  badsig[10] = badsig[10] == '0' ? '1' : '0';
  EXPECT_FALSE(kgate::ed25519_verify_hex(pem, msg, badsig));
  EXPECT_FALSE(kgate::ed25519_verify_hex(pem, msg, "zz"));
  std::filesystem::remove_all(dir);
}
