#!/usr/bin/env python3
"""Writes the canonical GPU case tables cases/ssu.json, cases/calib.json, cases/calib_94.json.
Run from the repository root; the JSON files are committed, this script documents their origin."""
import json

def band(b):
    return "b1-b8" if b <= 8 else ("b16-b64" if b <= 64 else "b128+")

def ssu_rows():
    models = {  # name: (nheads, ngroups)
        "nemotron-h": (128, 8), "nemotron-h-tp2": (64, 4), "mamba2-2.7b": (80, 1), "granite-like": (48, 1)}
    plan = [
        ("nemotron-h", "bf16", [1, 2, 4, 8, 16, 32, 64, 128, 256]),
        ("nemotron-h", "fp32", [1, 8, 32, 128, 256]),
        ("nemotron-h-tp2", "bf16", [1, 4, 16, 64, 256]),
        ("nemotron-h-tp2", "fp32", [2, 32, 128]),
        ("mamba2-2.7b", "bf16", [1, 8, 32, 128, 256]),
        ("mamba2-2.7b", "fp32", [4, 64]),
        ("granite-like", "bf16", [1, 16, 64, 256]),
        ("granite-like", "fp32", [8, 128]),
    ]
    rows = []
    def add(model, st, b, variant="plain", **extra):
        h, g = models[model]
        p = {"batch": b, "nheads": h, "ngroups": g, "pool_slots": max(2 * b, 16), "state_dtype": st}
        p.update(extra)
        rid = f"ssu-{model}-{st}-b{b}" + ("" if variant == "plain" else f"-{variant}")
        rows.append({"id": rid, "params": p, "tags": {
            "model": model, "state": st, "band": band(b), "variant": variant,
            "floor_target": "tight" if b >= 32 else "loose"}})
    for model, st, batches in plan:
        for b in batches:
            add(model, st, b)
    add("nemotron-h", "bf16", 32, "z", has_z=True)
    add("mamba2-2.7b", "fp32", 16, "z", has_z=True)
    add("nemotron-h", "bf16", 8, "pad", pad_slots=2)
    add("nemotron-h-tp2", "bf16", 64, "pad", pad_slots=8)
    add("nemotron-h", "fp32", 256, "pad", pad_slots=16)
    add("nemotron-h", "bf16", 64, "fused", fused_extra=64, weight_dtype="bf16")  # aligned fused view
    add("mamba2-2.7b", "bf16", 16, "fused-unaligned", fused_extra=3, weight_dtype="bf16")
    return rows

ssu = {"table": "ssu", "family": "ssu",
       "description": "Mamba2 selective_state_update decode rows: Nemotron-H (128/8), its TP2 split (64/4), "
                      "Mamba2-2.7B (80/1), granite-like (48/1); BF16/FP32 state; batch 1-256; z, pad slots, fused views",
       "defaults": {"io_dtype": "bf16", "weight_dtype": "fp32", "softplus": True},
       "rows": ssu_rows()}

calib_rows = []
for us in [0, 5, 10, 20, 50, 100, 500, 1000, 5000]:
    calib_rows.append({"id": f"spin-{us}us", "params": {"kind": "spin", "us": us}, "tags": {"kind": "spin"}})
for us, pct in [(1000, 50), (200, 25), (2000, 75)]:
    calib_rows.append({"id": f"overlap-{us}us-{pct}pct", "params": {"kind": "overlap", "us": us, "overlap_pct": pct},
                       "tags": {"kind": "overlap"}})
for mb in [16, 512]:
    calib_rows.append({"id": f"copy-{mb}MiB", "params": {"kind": "copy", "bytes": mb << 20}, "tags": {"kind": "copy"}})
calib = {"table": "calib", "family": "calib",
         "description": "timer calibration: spins 5 us - 5 ms, overlapping pairs, D2D copies (16 MiB fits in L2)",
         "rows": calib_rows}
calib94 = {"table": "calib_94", "family": "calib",
           "description": "94 rows of 10 us spins: the cost of a 94-row, one-pair campaign",
           "rows": [{"id": f"spin10-{i:02d}", "params": {"kind": "spin", "us": 10}, "tags": {"kind": "spin"}} for i in range(94)]}

for path, doc in [("cases/ssu.json", ssu), ("cases/calib.json", calib), ("cases/calib_94.json", calib94)]:
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(path, len(doc["rows"]), "rows")
