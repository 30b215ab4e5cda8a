#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <filesystem>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"

TEST(Crypto, Sha256KnownVectors) {
  EXPECT_EQ(kgate::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(kgate::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Crypto, Ed25519SignVerifyAndReject) {
  auto dir = fresh_temp_dir("kgate_key_");
  std::string priv = (dir / "k.key").string(), pub = (dir / "k.pub").string();
  kgate::ed25519_keygen(priv, pub);
  std::string msg = "DSSEv1 4 type 4 body";
  const kgate::SigningKey key = kgate::SigningKey::load(priv);
  std::string sig = key.sign(msg);
  EXPECT_EQ(sig.size(), 64u);
  std::string pem = kgate::read_file(pub);
  EXPECT_EQ(pem, key.public_pem());
  EXPECT_EQ(pem, kgate::ed25519_canonical_public_pem(pem));
  EXPECT_EQ(kgate::ed25519_raw_public_key(pem).size(), 32u);
  EXPECT_TRUE(kgate::ed25519_verify(pem, msg, sig));
  std::string bad = msg;
  bad[0] = 'd';
  EXPECT_FALSE(kgate::ed25519_verify(pem, bad, sig));
  std::string badsig = sig;
  badsig[10] ^= 1;
  EXPECT_FALSE(kgate::ed25519_verify(pem, msg, badsig));
  EXPECT_FALSE(kgate::ed25519_verify(pem, msg, sig.substr(1)));
  EXPECT_FALSE(kgate::ed25519_verify(pem, msg, ""));
  kgate::ed25519_keygen((dir / "o.key").string(), (dir / "o.pub").string());
  EXPECT_FALSE(kgate::ed25519_verify(kgate::read_file((dir / "o.pub").string()), msg, sig));
  EXPECT_FALSE(kgate::ed25519_verify("not a key", msg, sig));
  EXPECT_EQ(kgate::ed25519_raw_public_key("not a key"), "");
  EXPECT_EQ(kgate::ed25519_canonical_public_pem("not a key"), "");
  std::filesystem::remove_all(dir);
}

// keygen's private key: owner-only, never written through a planted link, never over a file.
TEST(Crypto, KeygenPrivateKeyIsOwnerOnlyAndNeverFollowsALink) {
  namespace fs = std::filesystem;
  auto dir = fresh_temp_dir("kgate_keymode_");
  const std::string priv = (dir / "k.key").string(), pub = (dir / "k.pub").string();
  kgate::ed25519_keygen(priv, pub);
  EXPECT_EQ(fs::status(priv).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  const std::string victim = (dir / "victim").string(), link = (dir / "l.key").string();
  kgate::write_file_atomic(victim, "keep");
  fs::create_symlink(victim, link);
  EXPECT_THROW(kgate::ed25519_keygen(link, (dir / "l.pub").string()), kgate::InputError);
  EXPECT_EQ(kgate::read_file(victim), "keep");
  EXPECT_THROW(kgate::ed25519_keygen(priv, pub), kgate::InputError);  // an existing key is kept
  fs::create_symlink(victim, dir / "m.pub");
  EXPECT_THROW(kgate::ed25519_keygen((dir / "m.key").string(), (dir / "m.pub").string()), kgate::InputError);
  EXPECT_EQ(kgate::read_file(victim), "keep");
  fs::remove_all(dir);
}
