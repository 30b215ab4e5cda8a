#include "harness/core/crypto.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "harness/core/errors.hpp"

namespace kgate {
namespace {

struct PkeyFree { void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); } };
struct MdCtxFree { void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); } };
struct BioFree { void operator()(BIO* p) const { BIO_free(p); } };
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

std::string to_hex(const unsigned char* p, size_t n) {
  static const char* hex = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    s[2 * i] = hex[p[i] >> 4];
    s[2 * i + 1] = hex[p[i] & 15];
  }
  return s;
}

bool from_hex(const std::string& h, std::vector<unsigned char>& out) {
  if (h.size() % 2) return false;
  out.clear();
  for (size_t i = 0; i < h.size(); i += 2) {
    auto nib = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      return -1;
    };
    int a = nib(h[i]), b = nib(h[i + 1]);
    if (a < 0 || b < 0) return false;
    out.push_back(static_cast<unsigned char>(a * 16 + b));
  }
  return true;
}

Pkey load_private(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open private key");
  EVP_PKEY* k = PEM_read_PrivateKey(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  if (!k || EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(k);
    throw InputError(path + ": not an Ed25519 private key in PEM form");
  }
  return Pkey(k);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), md, &n, EVP_sha256(), nullptr))
    throw std::runtime_error("OpenSSL EVP_Digest(sha256) failed");
  return to_hex(md, n);
}

std::string sha256_file_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return sha256_hex(ss.str());
}

void ed25519_keygen(const std::string& priv_path, const std::string& pub_path) {
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  if (!raw) throw std::runtime_error("OpenSSL: Ed25519 key generation failed");
  Pkey k(raw);
  FILE* f = std::fopen(priv_path.c_str(), "wb");
  if (!f) throw InputError(priv_path + ": cannot write");
  PEM_write_PrivateKey(f, k.get(), nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  f = std::fopen(pub_path.c_str(), "wb");
  if (!f) throw InputError(pub_path + ": cannot write");
  PEM_write_PUBKEY(f, k.get());
  std::fclose(f);
}

std::string ed25519_public_pem_from_private(const std::string& priv_path) {
  Pkey k = load_private(priv_path);
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PUBKEY(bio.get(), k.get());
  char* data = nullptr;
  long n = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string ed25519_sign_hex(const std::string& priv_path, std::string_view msg) {
  Pkey k = load_private(priv_path);
  MdCtx ctx(EVP_MD_CTX_new());
  size_t siglen = 0;
  if (EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &siglen,
                     reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) != 1)
    throw std::runtime_error("OpenSSL: Ed25519 sign init failed");
  std::vector<unsigned char> sig(siglen);
  if (EVP_DigestSign(ctx.get(), sig.data(), &siglen,
                     reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) != 1)
    throw std::runtime_error("OpenSSL: Ed25519 sign failed");
  return to_hex(sig.data(), siglen);
}

std::string ed25519_canonical_public_pem(const std::string& pem) {
  std::unique_ptr<BIO, BioFree> in(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Pkey k(PEM_read_bio_PUBKEY(in.get(), nullptr, nullptr, nullptr));
  if (!k || EVP_PKEY_id(k.get()) != EVP_PKEY_ED25519) return "";
  std::unique_ptr<BIO, BioFree> out(BIO_new(BIO_s_mem()));
  PEM_write_bio_PUBKEY(out.get(), k.get());
  char* data = nullptr;
  long n = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

bool ed25519_verify_hex(const std::string& public_pem, std::string_view msg,
                        const std::string& sig_hex) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(public_pem.data(), static_cast<int>(public_pem.size())));
  Pkey k(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  if (!k || EVP_PKEY_id(k.get()) != EVP_PKEY_ED25519) return false;
  std::vector<unsigned char> sig;
  if (!from_hex(sig_hex, sig)) return false;
  MdCtx ctx(EVP_MD_CTX_new());
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, k.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), sig.data(), sig.size(),
                          reinterpret_cast<const unsigned char*>(msg.data()), msg.size()) == 1;
}

}  // namespace kgate
