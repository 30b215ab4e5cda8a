#pragma once
// SHA-256 and Ed25519 through OpenSSL's EVP interface.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct evp_pkey_st;  // OpenSSL's EVP_PKEY

namespace kgate {

// n bytes as lowercase hex (2 n digits).
std::string to_hex(const unsigned char* p, size_t n);

std::string sha256_hex(std::string_view bytes);
std::string sha256_file_hex(const std::string& path);  // throws InputError if unreadable

// Ed25519 keys as PEM files (PKCS#8 private, SubjectPublicKeyInfo public).
void ed25519_keygen(const std::string& private_pem_path, const std::string& public_pem_path);

// An Ed25519 private key read from its PEM file once: a run loads it in its preflight (a bad key
// is an input error before any work) and the seal signs with the same key, never re-reading the
// file after the samples are taken.
class SigningKey {
 public:
  // Throws InputError naming the path unless it holds an Ed25519 private key in PEM form.
  static SigningKey load(const std::string& private_pem_path);
  // The 64-byte Ed25519 signature of `message` (raw bytes).
  std::string sign(std::string_view message) const;
  // Its public key as a SubjectPublicKeyInfo PEM, as OpenSSL writes it.
  const std::string& public_pem() const { return public_pem_; }

 private:
  std::shared_ptr<evp_pkey_st> key_;
  std::string public_pem_;
};
// The PEM as OpenSSL writes it for the key the input encodes ("" if not an Ed25519 key):
// lets an auditor insist on one spelling of the key, so no byte of a receipt is free.
std::string ed25519_canonical_public_pem(const std::string& pem);
// The raw 32-byte public key (RFC 8032) the PEM encodes ("" if not an Ed25519 public key).
std::string ed25519_raw_public_key(const std::string& public_pem);
// Whether `signature` (64 raw bytes) is a valid Ed25519 signature of `message` by public_pem.
bool ed25519_verify(const std::string& public_pem, std::string_view message, std::string_view signature);

}  // namespace kgate
