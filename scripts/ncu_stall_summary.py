#!/usr/bin/env python3
"""Warp stall samples of one kernel launch by reason, by code region and by instruction, from Nsight Compute's
source page (ncu -i REP --page source --csv --print-source sass > FILE.sass.csv).
Regions: the code from one USETMAXREG (a warpgroup's register reallocation, where a role's code starts in a
warp-specialized kernel) to the next, in address order; region 0 is the entry code.
Usage: ncu_stall_summary.py FILE.sass.csv [FILE ...] [--top N]"""
import csv
import sys


def summary(path, top):
    rows = list(csv.reader(open(path)))
    kernel, hdr = rows[0][1] if len(rows[0]) > 1 else "?", rows[1]
    col = {h: i for i, h in enumerate(hdr)}
    data = [r for r in rows[2:] if len(r) == len(hdr)]
    reasons = [h for h in hdr if h.startswith("stall_") and not h.endswith("(Not Issued)")]
    num = lambda r, h: int(r[col[h]] or 0) if r[col[h]] not in ("", "-") else 0
    total = sum(num(r, "Warp Stall Sampling (All Samples)") for r in data)
    insts = sum(num(r, "Instructions Executed") for r in data)
    print(f"== {path}: {kernel[:100]}")
    print(f"   {total} stall samples, {insts} warp instructions executed")
    for h in sorted(reasons, key=lambda h: -sum(num(r, h) for r in data)):
        s = sum(num(r, h) for r in data)
        if s * 100 >= total:  # reasons of 1 % or more
            print(f"   {h:24s} {100.0 * s / total:5.1f} %")
    region, regions = 0, {}
    for r in data:
        if "USETMAXREG" in r[col["Source"]]:
            region += 1
        s, n = regions.get(region, (0, 0))
        regions[region] = (s + num(r, "Warp Stall Sampling (All Samples)"), n + num(r, "Instructions Executed"))
    for k, (s, n) in regions.items():
        print(f"   region {k}: {100.0 * s / total:5.1f} % of samples, {n} warp instructions")
    for r in sorted(data, key=lambda r: -num(r, "Warp Stall Sampling (All Samples)"))[:top]:
        s = num(r, "Warp Stall Sampling (All Samples)")
        why = max(reasons, key=lambda h: num(r, h))
        print(f"   {100.0 * s / total:5.1f} %  {why[6:]:14s} {r[col['Source']].strip()[:70]}")


args = [a for a in sys.argv[1:] if not a.startswith("--")]
top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 12
if not args:
    sys.exit(__doc__)
for p in args:
    if p.isdigit():
        continue
    summary(p, top)
