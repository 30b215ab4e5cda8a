#pragma once
// DSSE v1 (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse): the JSON envelope
// {"payloadType", "payload", "signatures": [{"keyid", "sig"}]} signed with Ed25519 over
// PAE(payloadType, payload). kgate signs a receipt's body (an in-toto Statement v1) as the
// payload, so any DSSE verifier (e.g. securesystemslib's dsse.Envelope) can check it.
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/crypto.hpp"
#include "harness/core/jcs.hpp"

namespace kgate {

inline constexpr std::string_view kInTotoPayloadType = "application/vnd.in-toto+json";

// RFC 4648 section 4 base64 (standard alphabet, '=' padding).
std::string base64_encode(std::string_view bytes);
// The bytes `text` encodes, only when it is exactly what base64_encode writes for them (standard
// alphabet, padded, no whitespace, zero unused bits): one spelling per payload and signature.
std::optional<std::string> base64_decode(std::string_view text);

// "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal (DSSE protocol v1).
std::string dsse_pae(std::string_view payload_type, std::string_view payload);

// The key id kgate writes: lowercase hex SHA-256 of the raw 32-byte Ed25519 public key ("" if
// the PEM is not an Ed25519 public key).
std::string dsse_keyid(const std::string& public_pem);

// An envelope of `payload` with one Ed25519 signature by `key`.
json dsse_sign_ed25519(std::string_view payload_type, std::string_view payload, const SigningKey& key);

// An envelope decoded; `sig` holds the raw signature bytes.
struct DsseEnvelope {
  std::string payload_type, payload, keyid, sig;
};
// Decodes an envelope of exactly the form dsse_sign_ed25519 writes (the three keys, one
// signature with keyid and sig, canonical base64); otherwise nullopt and `why` says what differs.
std::optional<DsseEnvelope> dsse_decode(const json& envelope, std::string& why);
// Whether the envelope's signature is a valid Ed25519 signature of its PAE by public_pem.
bool dsse_verify_ed25519(const DsseEnvelope& envelope, const std::string& public_pem);

}  // namespace kgate
