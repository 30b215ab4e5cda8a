"""Checks a kgate receipt's signature with an independent DSSE verifier (securesystemslib).

  dsse_verify.py verify RECEIPT PUBKEY.pem [--keyid-from-envelope]
      exit 0: Envelope.verify([key], 1) accepts seal.signature.dsse and the verified payload is
      the receipt's body (JSON-equal, and its SHA-256 is seal.body_sha256); exit 1: rejected.
      The key's id is SHA-256 of its raw 32 bytes (what kgate documents); with
      --keyid-from-envelope it takes the envelope's keyid instead, so that a wrong key is
      refused by the Ed25519 check itself rather than by the keyid filter.
  dsse_verify.py tamper RECEIPT OUT
      writes RECEIPT with one edit inside the DSSE payload (the file stays canonical).
Any other exit status is a broken test, not a verdict.
"""
import base64
import hashlib
import json
import sys
import traceback

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

IN_TOTO = "application/vnd.in-toto+json"


def reject(why):
    print(f"rejected: {why}")
    sys.exit(1)


def broken(why):
    print(f"broken: {why}", file=sys.stderr)
    sys.exit(2)


def verify(receipt_path, pub_path, keyid_from_envelope):
    with open(receipt_path, "rb") as f:
        receipt = json.loads(f.read())
    env_dict = receipt["seal"]["signature"]["dsse"]
    with open(pub_path, "rb") as f:
        pub = serialization.load_pem_public_key(f.read())
    if not isinstance(pub, Ed25519PublicKey):
        broken(f"{pub_path}: not an Ed25519 public key")
    raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    keyid = env_dict["signatures"][0]["keyid"] if keyid_from_envelope else hashlib.sha256(raw).hexdigest()
    key = SSlibKey(keyid, "ed25519", "ed25519", {"public": raw.hex()})
    envelope = Envelope.from_dict(json.loads(json.dumps(env_dict)))  # from_dict edits its input
    try:
        accepted = envelope.verify([key], 1)
    except VerificationError as e:
        reject(f"securesystemslib: {e}")
    if list(accepted) != [keyid]:
        reject(f"accepted keys {list(accepted)}")
    if envelope.payload_type != IN_TOTO:
        reject(f"payloadType {envelope.payload_type!r}")
    if json.loads(envelope.payload) != receipt["body"]:
        reject("the verified payload is not the receipt's body")
    if hashlib.sha256(envelope.payload).hexdigest() != receipt["seal"]["body_sha256"]:
        reject("the verified payload's SHA-256 is not seal.body_sha256")
    print(f"verified: keyid {keyid}, {len(envelope.payload)} payload bytes = the receipt's body")


def tamper(receipt_path, out_path):
    with open(receipt_path, "rb") as f:
        data = f.read()
    b64 = json.loads(data)["seal"]["signature"]["dsse"]["payload"]
    payload = base64.b64decode(b64, validate=True)
    forged = payload.replace(b'"backend":"cpu"', b'"backend":"gpu"', 1)
    if forged == payload:
        broken("no backend field in the payload")
    new_b64 = base64.b64encode(forged).decode()
    if data.count(b64.encode()) != 1:
        broken("the payload's base64 is not found exactly once in the file")
    with open(out_path, "wb") as f:
        f.write(data.replace(b64.encode(), new_b64.encode()))


if __name__ == "__main__":
    args = sys.argv[1:]
    try:
        if len(args) in (3, 4) and args[0] == "verify" and args[3:] in ([], ["--keyid-from-envelope"]):
            verify(args[1], args[2], len(args) == 4)
        elif len(args) == 3 and args[0] == "tamper":
            tamper(args[1], args[2])
        else:
            broken(__doc__)
    except Exception:  # a crash is no verdict: exit 2, never the 1 of a rejection
        traceback.print_exc()
        sys.exit(2)
