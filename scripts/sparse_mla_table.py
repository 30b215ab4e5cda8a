#!/usr/bin/env python3
"""sparse_mla table of a receipt: per row the candidate's median, each baseline's median and
kgate's ratio (baseline / candidate; > 1: the candidate is faster), the candidate's TFLOP/s and
GB/s (the receipt's work model: flops, and bytes = every index column's row per token + q + out +
indices, FlashMLA's convention, not deduplicated) and its time over the floor's; then the
geomean of each ratio over all rows and by the tags dtype, heads and phase.
Usage: sparse_mla_table.py RECEIPT"""
import json, math, sys
from collections import defaultdict

if len(sys.argv) != 2:
    sys.exit(__doc__.strip())
pred = json.load(open(sys.argv[1]))["body"]["predicate"]
rows = pred["rows"]
short = lambda b: b.split(":")[-1]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
base_names = []
for r in rows:
    for p in r["pairs"]:
        if p["baseline"] not in base_names:
            base_names.append(p["baseline"])
head = f'{"row":44s} {"cand us":>8s} ' + " ".join(f'{short(b)[:18]:>18s} {"ratio":>6s}' for b in base_names)
print(head + f' {"TFLOP/s":>8s} {"GB/s":>7s}')
by = defaultdict(list)
for r in rows:
    pairs = {p["baseline"]: p for p in r["pairs"]}
    cand = next((p["candidate_stats"]["median_us"] for p in r["pairs"] if p.get("candidate_stats")), None)
    if cand is None:
        print(f'{r["id"]:44s} {r["disposition"]}')
        continue
    cells = []
    for b in base_names:
        p = pairs.get(b)
        if p is None or p["ratio"] is None:
            cells.append(f'{"-":>18s} {"-":>6s}')
            continue
        cells.append(f'{p["baseline_stats"]["median_us"]:18.2f} {p["ratio"]:6.3f}')
        for key in ["all"] + [f"{k}={v}" for k, v in sorted(r["tags"].items()) if k in ("dtype", "heads", "phase")]:
            by[(b, key)].append(p["ratio"])
    w = r["work"]
    print(f'{r["id"]:44s} {cand:8.2f} ' + " ".join(cells) + f' {w["flops"] / cand / 1e6:8.1f} {w["bytes"] / cand / 1e3:7.0f}')
for b in base_names:
    print(f"geomean {short(b)} / candidate: " + ", ".join(f"{k} {g(v):.3f} ({len(v)})" for (bb, k), v in by.items() if bb == b))
