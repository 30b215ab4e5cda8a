#!/usr/bin/env python3
"""ag_gemm table of a receipt: per row the candidate's (ag_gemm.overlap) median and each
baseline's median with kgate's ratio (baseline / candidate; > 1: the candidate is faster), the
candidate's TFLOP/s (the receipt's work model: 2 * world_size * m * n * k) and its percent of the
GEMM rate the receipt's environment measured (environment.peaks, cuBLAS BF16 8192^3). Where the
receipt has the floor (one GEMM, no communication) and the gather (the overlap's copies alone),
also the copy the schedule hides: (floor + gather - candidate) / gather, 1 = all of it, and the
candidate over the serial sum floor + gather.
Usage: ag_gemm_table.py RECEIPT"""
import json, math, sys

if len(sys.argv) != 2:
    sys.exit(__doc__.strip())
body = json.load(open(sys.argv[1]))["body"]
pred = body["predicate"]
env = pred.get("environment", {})
peak = (env.get("peaks") or {}).get("gemm_bf16_flops_per_s")
ranks = env.get("ranks", {})
print(f'ranks: {json.dumps(ranks)}; measured cuBLAS GEMM rate: {peak / 1e12:.1f} TFLOP/s' if peak else f'ranks: {json.dumps(ranks)}; no GEMM peak')
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
names = []
for r in pred["rows"]:
    for p in r["pairs"]:
        if p["baseline"] not in names:
            names.append(p["baseline"])
short = lambda b: b.split(".")[-1]
print(f'{"row":30s} {"overlap us":>10s} ' + " ".join(f'{short(b):>9s} {"ratio":>6s}' for b in names) +
      f' {"TFLOP/s":>8s} {"%peak":>6s} {"hidden":>6s} {"/serial":>7s}')
ratios = {b: [] for b in names}
for r in pred["rows"]:
    pairs = {p["baseline"]: p for p in r["pairs"]}
    cand = next((p["candidate_stats"]["median_us"] for p in r["pairs"] if p.get("candidate_stats")), None)
    if cand is None:
        print(f'{r["id"]:30s} {r["disposition"]}')
        continue
    cells, med = [], {}
    for b in names:
        p = pairs.get(b)
        if p is None or p.get("ratio") is None:
            cells.append(f'{"-":>9s} {"-":>6s}')
            continue
        med[b] = p["baseline_stats"]["median_us"]
        ratios[b].append(p["ratio"])
        cells.append(f'{med[b]:9.1f} {p["ratio"]:6.3f}')
    tf = r["work"]["flops"] / cand / 1e6
    pct = f'{100 * tf * 1e12 / peak:6.1f}' if peak else f'{"-":>6s}'
    hid = ser = f'{"-":>6s}'
    fl, ga = med.get("ag_gemm.floor"), med.get("ag_gemm.gather")
    if fl is not None and ga is not None:
        hid = f'{(fl + ga - cand) / ga:6.2f}'
        ser = f'{cand / (fl + ga):7.3f}'
    print(f'{r["id"]:30s} {cand:10.1f} ' + " ".join(cells) + f' {tf:8.1f} {pct} {hid} {ser}')
for b in names:
    if ratios[b]:
        print(f"{short(b)} / overlap: geomean {g(ratios[b]):.4f}, min {min(ratios[b]):.4f}, max {max(ratios[b]):.4f} ({len(ratios[b])} rows)")
