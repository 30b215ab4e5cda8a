#include "harness/core/crypto.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <filesystem>
#include <memory>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"

namespace kgate {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// A key file is read as any other input (regular, bounded): a FIFO or /dev/zero is refused.
constexpr size_t kMaxKeyFileBytes = 1 << 20;

Pkey load_private(const std::string& path) {
  const std::string pem = read_file(path, kMaxKeyFileBytes);
  std::unique_ptr<BIO, BioFree> in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr);
  if (!k || EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(k);
    throw InputError(path + ": not an Ed25519 private key in PEM form");
  }
  return Pkey(k);
}

// The Ed25519 public key a PEM text encodes; null if it encodes anything else.
Pkey load_public(const std::string& pem) {
  if (pem.size() > 1 << 20) return nullptr;  // far past any key; keeps the int length below exact
  std::unique_ptr<BIO, BioFree> in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Pkey k(PEM_read_bio_PUBKEY(in.get(), nullptr, nullptr, nullptr));
  if (!k || EVP_PKEY_id(k.get()) != EVP_PKEY_ED25519) return nullptr;
  return k;
}

// What a memory BIO holds.
std::string bio_text(BIO* b) {
  char* data = nullptr;
  long n = BIO_get_mem_data(b, &data);
  return std::string(data, static_cast<size_t>(n));
}

// SubjectPublicKeyInfo PEM, as OpenSSL writes it.
std::string public_pem_of(EVP_PKEY* k) {
  std::unique_ptr<BIO, BioFree> out(BIO_new(BIO_s_mem()));
  PEM_write_bio_PUBKEY(out.get(), k);
  return bio_text(out.get());
}

}  // namespace

std::string to_hex(const unsigned char* p, size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = hex[p[i] >> 4];
    s[2 * i + 1] = hex[p[i] & 15];
  }
  return s;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr))
    throw std::runtime_error("OpenSSL EVP_Digest(sha256) failed");
  return to_hex(md, n);
}

std::string sha256_file_hex(const std::string& path) { return sha256_hex(read_file(path)); }

void ed25519_keygen(const std::string& priv_path, const std::string& pub_path) {
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  if (!raw) throw std::runtime_error("OpenSSL: Ed25519 key generation failed");
  Pkey k(raw);
  std::unique_ptr<BIO, BioFree> priv(BIO_new(BIO_s_mem()));
  if (!priv || PEM_write_bio_PrivateKey(priv.get(), k.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1)
    throw std::runtime_error(priv_path + ": writing the private key failed");
  // The private key is created (never replacing a file, never through a link) readable by its
  // owner only; the public key may replace an old one, but not through a link either.
  for (const std::string& p : {priv_path, pub_path}) {
    std::error_code ec;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec)))
      throw InputError(p + ": is a symbolic link; a key is never written through one");
  }
  write_file_atomic(priv_path, bio_text(priv.get()), {0600, false});
  write_file_atomic(pub_path, public_pem_of(k.get()), {0644, true});
}

SigningKey SigningKey::load(const std::string& priv_path) {
  SigningKey k;
  k.key_ = load_private(priv_path);
  k.public_pem_ = public_pem_of(k.key_.get());
  return k;
}

std::string SigningKey::sign(std::string_view msg) const {
  MdCtx ctx(EVP_MD_CTX_new());
  size_t siglen = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &siglen, reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) != 1)
    throw std::runtime_error("OpenSSL: Ed25519 sign init failed");
  std::string sig(siglen, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &siglen,
                     reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) != 1)
    throw std::runtime_error("OpenSSL: Ed25519 sign failed");
  sig.resize(siglen);
  return sig;
}

std::string ed25519_canonical_public_pem(const std::string& pem) {
  Pkey k = load_public(pem);
  return k ? public_pem_of(k.get()) : "";
}

std::string ed25519_raw_public_key(const std::string& pem) {
  Pkey k = load_public(pem);
  if (!k) return "";
  std::string raw(32, '\0');
  size_t n = raw.size();
  if (EVP_PKEY_get_raw_public_key(k.get(), reinterpret_cast<unsigned char*>(raw.data()), &n) != 1 || n != 32) return "";
  return raw;
}

bool ed25519_verify(const std::string& public_pem, std::string_view msg, std::string_view sig) {
  Pkey k = load_public(public_pem);
  if (!k || sig.size() != 64) return false;
  MdCtx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) == 1;
}

}  // namespace kgate
