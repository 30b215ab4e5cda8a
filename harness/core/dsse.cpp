#include "harness/core/dsse.hpp"

#include "harness/core/crypto.hpp"

namespace kgate {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool has_string(const json& j, const char* key) { return j.contains(key) && j[key].is_string(); }

}  // namespace

std::string base64_encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                 static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
  }
  size_t rest = in.size() - i;
  if (rest) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4) return std::nullopt;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    unsigned v = 0;
    for (size_t j = 0; j < 4; ++j) {
      int d = last && j >= 4 - pad ? 0 : sextet(text[i + j]);
      if (d < 0) return std::nullopt;  // '=' anywhere but the end is here too
      v = v << 6 | static_cast<unsigned>(d);
    }
    out += static_cast<char>(v >> 16);
    if (!last || pad < 2) out += static_cast<char>(v >> 8 & 255);
    if (!last || pad < 1) out += static_cast<char>(v & 255);
  }
  // Nonzero unused bits would give a second spelling of the same bytes.
  if (base64_encode(out) != text) return std::nullopt;
  return out;
}

std::string dsse_pae(std::string_view type, std::string_view body) {
  std::string out = "DSSEv1 ";
  out += std::to_string(type.size());
  out += ' ';
  out += type;
  out += ' ';
  out += std::to_string(body.size());
  out += ' ';
  out += body;
  return out;
}

std::string dsse_keyid(const std::string& public_pem) {
  std::string raw = ed25519_raw_public_key(public_pem);
  return raw.empty() ? "" : sha256_hex(raw);
}

json dsse_sign_ed25519(std::string_view payload_type, std::string_view payload, const SigningKey& key) {
  std::string sig = key.sign(dsse_pae(payload_type, payload));
  std::string keyid = dsse_keyid(key.public_pem());
  json one = {{"keyid", keyid}, {"sig", base64_encode(sig)}};
  return {{"payloadType", std::string(payload_type)},
          {"payload", base64_encode(payload)},
          {"signatures", json::array({one})}};
}

std::optional<DsseEnvelope> dsse_decode(const json& j, std::string& why) {
  if (!j.is_object() || j.size() != 3 || !has_string(j, "payloadType") || !has_string(j, "payload") ||
      !j.contains("signatures")) {
    why = "DSSE envelope must have exactly the keys payloadType, payload (strings) and signatures";
    return std::nullopt;
  }
  const json& sigs = j["signatures"];
  if (!sigs.is_array() || sigs.size() != 1 || !sigs[0].is_object() || sigs[0].size() != 2 ||
      !has_string(sigs[0], "keyid") || !has_string(sigs[0], "sig")) {
    why = "DSSE envelope must hold exactly one signature {keyid, sig}";
    return std::nullopt;
  }
  DsseEnvelope e;
  e.payload_type = j["payloadType"].get<std::string>();
  e.keyid = sigs[0]["keyid"].get<std::string>();
  auto payload = base64_decode(j["payload"].get<std::string>());
  auto sig = base64_decode(sigs[0]["sig"].get<std::string>());
  if (!payload || !sig) {
    why = "DSSE payload or sig is not canonical standard base64 (RFC 4648, padded)";
    return std::nullopt;
  }
  e.payload = std::move(*payload);
  e.sig = std::move(*sig);
  return e;
}

bool dsse_verify_ed25519(const DsseEnvelope& e, const std::string& public_pem) {
  return ed25519_verify(public_pem, dsse_pae(e.payload_type, e.payload), e.sig);
}

}  // namespace kgate
