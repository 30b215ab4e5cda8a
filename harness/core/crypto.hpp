#pragma once
// SHA-256 and Ed25519 through OpenSSL's EVP interface.
#include <cstddef>
#include <string>
#include <string_view>

namespace kgate {

// n bytes as lowercase hex (2 n digits).
std::string to_hex(const unsigned char* p, size_t n);

std::string sha256_hex(std::string_view bytes);
std::string sha256_file_hex(const std::string& path);  // throws InputError if unreadable

// Ed25519 keys as PEM files (PKCS#8 private, SubjectPublicKeyInfo public).
void ed25519_keygen(const std::string& private_pem_path, const std::string& public_pem_path);
// The 64-byte Ed25519 signature of `message` (raw bytes) by the key in the PEM file.
std::string ed25519_sign(const std::string& private_pem_path, std::string_view message);
std::string ed25519_public_pem_from_private(const std::string& private_pem_path);
// The PEM as OpenSSL writes it for the key the input encodes ("" if not an Ed25519 key):
// lets an auditor insist on one spelling of the key, so no byte of a receipt is free.
std::string ed25519_canonical_public_pem(const std::string& pem);
// The raw 32-byte public key (RFC 8032) the PEM encodes ("" if not an Ed25519 public key).
std::string ed25519_raw_public_key(const std::string& public_pem);
// Whether `signature` (64 raw bytes) is a valid Ed25519 signature of `message` by public_pem.
bool ed25519_verify(const std::string& public_pem, std::string_view message, std::string_view signature);

}  // namespace kgate
