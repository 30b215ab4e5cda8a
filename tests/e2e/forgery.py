#!/usr/bin/env python3
"""Forges kgate receipts the way a forger without the signing key would: edit the body (and the
sidecar), then recompute everything a reader can recompute (the sidecar's facts digest and
sha256, its subject and name, the policy subject, verdicts and summary counts where the edit
changes them, every row digest, the body digest) and write the resealed receipt unsigned, or
signed with the forger's own Ed25519 key. Standard library only: RFC 8785 (JCS) and Ed25519
(RFC 8032) are written out here.

    forgery.py kinds                          one line per kind: "<name> <fact|signature>"
    forgery.py forge KIND RECEIPT OUT.json    OUT.json (+ its sidecar beside it), unsigned
    forgery.py resign RECEIPT OUT.json        the receipt unchanged, re-signed with a fresh key
"""
import base64
import copy
import decimal
import hashlib
import json
import os
import sys

# ---- RFC 8785 canonical JSON -------------------------------------------------------------------


def jcs_number(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError("non-finite number")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    t = decimal.Decimal(repr(abs(x))).as_tuple()
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    exp = t.exponent + (len("".join(map(str, t.digits))) - len(digits))
    k, n = len(digits), len(digits) + exp  # value = 0.digits x 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mant = digits[0] + ("." + digits[1:] if k > 1 else "")
    return sign + mant + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def jcs(v):
    if v is None or isinstance(v, (bool, int, float)):
        return "null" if v is None else jcs_number(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    keys = sorted(v, key=lambda s: s.encode("utf-16-be"))
    return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + jcs(v[k]) for k in keys) + "}"


def sha(b):
    return hashlib.sha256(b if isinstance(b, bytes) else b.encode()).hexdigest()


# ---- Ed25519 (RFC 8032 section 6, slow but short) ----------------------------------------------

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
GY = 4 * pow(5, P - 2, P) % P
GX_SQ = (GY * GY - 1) * pow(D * GY * GY + 1, P - 2, P) % P
GX = pow(GX_SQ, (P + 3) // 8, P)
GX = GX if (GX * GX - GX_SQ) % P == 0 else GX * pow(2, (P - 1) // 4, P) % P
GX = GX if GX % 2 == 0 else P - GX
G = (GX, GY, 1, GX * GY % P)


def pt_add(a, b):
    A, B = (a[1] - a[0]) * (b[1] - b[0]) % P, (a[1] + a[0]) * (b[1] + b[0]) % P
    C, Dd = 2 * a[3] * b[3] * D % P, 2 * a[2] * b[2] % P
    E, F, Gg, H = B - A, Dd - C, Dd + C, B + A
    return (E * F % P, Gg * H % P, F * Gg % P, E * H % P)


def pt_mul(s, p):
    q = (0, 1, 1, 0)
    while s:
        if s & 1:
            q = pt_add(q, p)
        p, s = pt_add(p, p), s >> 1
    return q


def pt_encode(p):
    zi = pow(p[2], P - 2, P)
    x, y = p[0] * zi % P, p[1] * zi % P
    return int.to_bytes(y | ((x & 1) << 255), 32, "little")


def ed25519_keypair(seed):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    return a, h[32:], pt_encode(pt_mul(a, G))


def ed25519_sign(seed, msg):
    a, prefix, pub = ed25519_keypair(seed)
    r = int.from_bytes(hashlib.sha512(prefix + msg).digest(), "little") % L
    R = pt_encode(pt_mul(r, G))
    k = int.from_bytes(hashlib.sha512(R + pub + msg).digest(), "little") % L
    return R + int.to_bytes((r + k * a) % L, 32, "little")


def public_pem(pub):
    der = bytes.fromhex("302a300506032b6570032100") + pub
    return "-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der).decode() + "\n-----END PUBLIC KEY-----\n"


def signature_block(body, seed):
    payload = jcs(body).encode()
    ptype = "application/vnd.in-toto+json"
    pae = b"DSSEv1 %d %s %d " % (len(ptype), ptype.encode(), len(payload)) + payload
    pub = ed25519_keypair(seed)[2]
    one = {"keyid": sha(pub), "sig": base64.b64encode(ed25519_sign(seed, pae)).decode()}
    env = {"payloadType": ptype, "payload": base64.b64encode(payload).decode(), "signatures": [one]}
    return {"dsse": env, "public_key_pem": public_pem(pub)}


# ---- Resealing -----------------------------------------------------------------------------------

FACT_ROW_KEYS = ["id", "family", "params", "tags", "tolerance", "correctness", "config", "disposition", "error", "work"]


def facts_digest(pred):
    rows = []
    for r in pred["rows"]:
        f = {k: r.get(k, "(absent)") for k in FACT_ROW_KEYS}
        if "refused" in r:
            f["refused"] = r["refused"]
        if "proof" in r:
            f["proof"] = r["proof"]
        rows.append(f)
    bound = {k: pred[k] for k in ["tool", "backend", "timer", "environment", "protocol", "cases", "arms", "policy", "run"]}
    bound["rows"] = rows
    return sha(jcs(bound))


def rejudge(pred):
    """Verdicts and summary counts as the recorded policy gives them from the recorded raw verdicts."""
    pol = pred["policy"]
    s = pred["summary"]
    s["policy_passed"], s["gate_failures"] = 0, {}
    for row in pred["rows"]:
        raw = row["verdicts"]["raw"]
        checks = row["correctness"]
        raw["correct"] = bool(checks) and all(c["passed"] for c in checks) and row["disposition"] != "incorrect"
        failed = [] if row["disposition"] == "passed" else ["disposition"]
        failed += [g for g in pol["gates"] if raw.get(g) is not True]
        for name, gs in pol.get("by_baseline", {}).items():
            failed += [g + "@" + name for g in gs["gates"] if raw["by_baseline"][name].get(g) is not True]
        row["verdicts"] = {"failed": failed, "policy": not failed, "raw": raw}
        s["policy_passed"] += not failed
        for g in failed:
            s["gate_failures"][g] = s["gate_failures"].get(g, 0) + 1
    s["policy_failed"] = s["rows"] - s["policy_passed"]


def reseal(body, sidecar, out_path, seed=None):
    pred = body["predicate"]
    old_name = pred["samples"]["path"]
    sidecar["facts_sha256"] = facts_digest(pred)
    sc_bytes = (jcs(sidecar) + "\n").encode()
    stem = os.path.basename(out_path)[: -len(".json")]
    name = stem + "." + sha(sc_bytes)[:16] + ".samples.json"
    pred["samples"] = {"path": name, "sha256": sha(sc_bytes)}
    for s in body["subject"]:
        if s["name"] == old_name:
            s["name"], s["digest"] = name, {"sha256": sha(sc_bytes)}
        elif s["name"] == "kgate:policy":
            s["digest"] = {"sha256": sha(jcs(pred["policy"]))}
    with open(os.path.join(os.path.dirname(out_path) or ".", name), "wb") as f:
        f.write(sc_bytes)
    seal = {
        "algorithm": "sha256",
        "body_sha256": sha(jcs(body)),
        "canonicalization": "RFC8785",
        "row_sha256": {r["id"]: sha(jcs(r)) for r in pred["rows"]},
        "signature": signature_block(body, seed) if seed else None,
    }
    with open(out_path, "wb") as f:
        f.write((jcs({"body": body, "schema": "kgate.receipt/3", "seal": seal}) + "\n").encode())


# ---- The forgeries -------------------------------------------------------------------------------
# Each edits (pred, sidecar rows, body) in place. "fact": a recorded fact exposes it, audit must
# refuse it; "signature": consistent with every recorded fact, only a signature protects it.


def first_passed(pred):
    return next(r for r in pred["rows"] if r["disposition"] == "passed")


def arm_source_subject(body):
    src = body["predicate"]["arms"][0]["sources"][0]
    return src, next(s for s in body["subject"] if s["name"] == src["path"])


def swap_roles(p, rows, b):
    pair = first_passed(p)["pairs"][0]
    pair["baseline"], pair["candidate"] = pair["candidate"], pair["baseline"]


def drop_check(p, rows, b):
    row = first_passed(p)
    row["correctness"].pop()


def table_swapped(p, rows, b):
    p["cases"]["sha256"] = "ab" * 32
    next(s for s in b["subject"] if s["name"] == p["cases"]["path"])["digest"]["sha256"] = "ab" * 32


def source_swapped(p, rows, b):
    src, subj = arm_source_subject(b)
    path = src["path"]
    for arm in p["arms"]:
        for s in arm["sources"]:
            if s["path"] == path:
                s["sha256"] = "cd" * 32
    subj["digest"]["sha256"] = "cd" * 32


def source_dropped(p, rows, b):
    path = p["arms"][0]["sources"][-1]["path"]
    for arm in p["arms"]:
        arm["sources"] = [s for s in arm["sources"] if s["path"] != path]


def weaken_policy(p, rows, b):
    p["policy"]["gates"] = ["correct"]
    rejudge(p)


def failed_check_still_passed(p, rows, b):
    first_passed(p)["correctness"][0]["passed"] = False  # verdicts follow; the disposition does not
    rejudge(p)


def set_(path, value):
    def edit(p, rows, b):
        *head, last = path
        o = p
        for k in head:
            o = o[k] if not callable(k) else k(p)
        o[last] = value(o[last]) if callable(value) else value

    return edit


FR = first_passed


def candidate_proof(p):
    return FR(p)["proof"]["arms"][FR(p)["pairs"][0]["candidate"]]

KINDS = {
    # name: (class, edit)
    "none": ("none", lambda p, rows, b: None),
    "protocol.groups": ("fact", set_(["protocol", "groups"], lambda g: g + 1)),
    "protocol.m": ("fact", set_(["protocol", "m"], lambda m: m + 1)),
    "protocol.blocks": ("fact", set_(["protocol", "blocks"], lambda n: n + 2)),
    "protocol.timer": ("fact", set_(["protocol", "timer"], "cupti")),
    "environment.backend": ("fact", set_(["environment", "backend"], "cuda")),
    "arms.backend": ("fact", set_(["arms", 0, "backend"], "cuda")),
    "arms.role": ("fact", set_(["arms", 1, "role"], "candidate")),
    "run.units": ("fact", set_(["run", "units"], lambda u: u + 1)),
    "run.resumed_units": ("fact", set_(["run", "resumed_units"], lambda u: 10**6)),
    "cases.sha256": ("fact", set_(["cases", "sha256"], "ab" * 32)),
    "cases.family": ("fact", set_(["cases", "family"], "ssu")),
    "cases.rows_filter": ("fact", set_(["cases", "rows_filter"], "axpy-n4096")),
    "row.family": ("fact", set_([FR, "family"], "ssu")),
    "row.pairs.swapped": ("fact", swap_roles),
    "row.pairs.candidate": ("fact", set_([FR, "pairs", 0, "candidate"], lambda c: "axpy.cpu_scalar")),
    "correctness.mismatches": ("fact", set_([FR, "correctness", 0, "mismatches"], 5000)),
    "correctness.nonfinite": ("fact", set_([FR, "correctness", 0, "nonfinite"], 7)),
    "correctness.unwritten": ("fact", set_([FR, "correctness", 0, "unwritten"], 3)),
    "correctness.elements": ("fact", set_([FR, "correctness", 0, "elements"], 0)),
    "correctness.arm": ("fact", set_([FR, "correctness", 0, "arm"], "axpy.forged")),
    "correctness.dropped": ("fact", drop_check),
    "correctness.failed_row_passed": ("fact", failed_check_still_passed),
    "row.config.arm": ("fact", set_([FR, "config"], {"axpy.forged": {"tile": 1}})),
    "subject.dropped": ("fact", lambda p, rows, b: b["subject"].pop(2)),
    "subject.added": ("fact", lambda p, rows, b: b["subject"].insert(2, {"name": "kernels/axpy/extra.cuh", "digest": {"sha256": "ef" * 32}})),
    "subject.digest": ("fact", lambda p, rows, b: arm_source_subject(b)[1]["digest"].update(sha256="ef" * 32)),
    "subject.binary": ("fact", lambda p, rows, b: b["subject"][0]["digest"].update(sha256="ef" * 32)),
    "arms.sources.dropped": ("fact", source_dropped),
    "proof.arm_dropped": ("fact", lambda p, rows, b: FR(p)["proof"]["arms"].pop(FR(p)["pairs"][0]["candidate"])),
    "proof.timed_calls": ("fact", lambda p, rows, b: candidate_proof(p).update(timed_calls=candidate_proof(p)["timed_calls"] + 1)),
    "proof.verified_calls": ("fact", lambda p, rows, b: candidate_proof(p).update(verified_calls=0)),
    "proof.one_seed": ("fact", lambda p, rows, b: candidate_proof(p)["checks"].pop()),
    "sidecar.group_dropped": ("fact", lambda p, rows, b: [pr["baseline"].pop() for pr in rows[FR(p)["id"]]["pairs"]]),
    # Only a signature protects these (harness/core/AUDIT.md).
    "policy.weakened": ("signature", weaken_policy),
    "cases.table_swapped": ("signature", table_swapped),
    "arms.source_swapped": ("signature", source_swapped),
    "correctness.note": ("signature", set_([FR, "correctness", 0, "note"], "checked twice")),
    "cases.rows_filter.widened": ("signature", set_(["cases", "rows_filter"], "axpy-*")),
    "arms.sources.dropped_one_arm": ("signature", lambda p, rows, b: p["arms"][0]["sources"].pop()),
    "row.tolerance": ("signature", set_([FR, "tolerance", "atol"], 0.5)),
    "environment.cpu": ("signature", set_(["environment", "cpu"], "a faster CPU")),
    "tool.version": ("signature", set_(["tool", "version"], "9.9.9")),
    "run.finished_utc": ("signature", set_(["run", "finished_utc"], "2030-01-01T00:00:00Z")),
}


def load(receipt_path):
    r = json.load(open(receipt_path))
    sc_path = os.path.join(os.path.dirname(receipt_path), r["body"]["predicate"]["samples"]["path"])
    return r, json.load(open(sc_path))


def main(argv):
    if argv[1:2] == ["kinds"]:
        for name, (cls, _) in KINDS.items():
            print(name, cls)
        return 0
    if len(argv) == 5 and argv[1] == "forge":
        r, sidecar = load(argv[3])
        body = copy.deepcopy(r["body"])
        KINDS[argv[2]][1](body["predicate"], sidecar["rows"], body)
        reseal(body, sidecar, argv[4])
        return 0
    if len(argv) == 4 and argv[1] == "resign":
        r, sidecar = load(argv[2])
        reseal(r["body"], sidecar, argv[3], seed=os.urandom(32))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
