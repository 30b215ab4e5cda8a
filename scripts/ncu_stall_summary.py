#!/usr/bin/env python3
"""Warp stall samples of one kernel launch by reason, by code region and by instruction, from Nsight Compute's
source page (ncu -i REP --page source --csv --print-source sass > FILE.sass.csv).
Regions: the code from one USETMAXREG (a warpgroup's register reallocation, where a role's code starts in a
warp-specialized kernel) to the next, in address order; region 0 is the entry code.
--ops STEPS: instead, warp instructions executed per region and opcode (the 16 most), divided by STEPS
(e.g. a launch's block steps, for a count per step).
Usage: ncu_stall_summary.py FILE.sass.csv [FILE ...] [--top N] [--ops STEPS]"""
import argparse
import csv


def load(path):
    rows = list(csv.reader(open(path)))
    kernel, hdr = rows[0][1] if len(rows[0]) > 1 else "?", rows[1]
    col = {h: i for i, h in enumerate(hdr)}
    data = [r for r in rows[2:] if len(r) == len(hdr)]
    num = lambda r, h: int(r[col[h]]) if r[col[h]] not in ("", "-") else 0
    return kernel, hdr, col, data, num


def regions(data, col):
    """(region, row) in address order: a new region at every USETMAXREG."""
    region = 0
    for r in data:
        if "USETMAXREG" in r[col["Source"]]:
            region += 1
        yield region, r


def opcode(source):
    t = source.split()
    return (t[1] if t[0].startswith("@") else t[0]).split(".")[0]


def summary(path, top):
    kernel, hdr, col, data, num = load(path)
    reasons = [h for h in hdr if h.startswith("stall_") and not h.endswith("(Not Issued)")]
    total = sum(num(r, "Warp Stall Sampling (All Samples)") for r in data)
    insts = sum(num(r, "Instructions Executed") for r in data)
    print(f"== {path}: {kernel[:100]}")
    print(f"   {total} stall samples, {insts} warp instructions executed")
    for h in sorted(reasons, key=lambda h: -sum(num(r, h) for r in data)):
        s = sum(num(r, h) for r in data)
        if s * 100 >= total:  # reasons of 1 % or more
            print(f"   {h:24s} {100.0 * s / total:5.1f} %")
    by = {}
    for k, r in regions(data, col):
        s, n = by.get(k, (0, 0))
        by[k] = (s + num(r, "Warp Stall Sampling (All Samples)"), n + num(r, "Instructions Executed"))
    for k, (s, n) in by.items():
        print(f"   region {k}: {100.0 * s / total:5.1f} % of samples, {n} warp instructions")
    for r in sorted(data, key=lambda r: -num(r, "Warp Stall Sampling (All Samples)"))[:top]:
        s = num(r, "Warp Stall Sampling (All Samples)")
        why = max(reasons, key=lambda h: num(r, h))
        print(f"   {100.0 * s / total:5.1f} %  {why[6:]:14s} {r[col['Source']].strip()[:70]}")


def ops(path, steps):
    kernel, hdr, col, data, num = load(path)
    by = {}
    for k, r in regions(data, col):
        d = by.setdefault(k, {})
        op = opcode(r[col["Source"]])
        d[op] = d.get(op, 0) + num(r, "Instructions Executed")
    print(f"== {path}: {kernel[:100]}")
    for k, d in by.items():
        top = sorted(d.items(), key=lambda x: -x[1])[:16]
        print(f" region {k} {sum(d.values()) // steps} per step:", " ".join(f"{o} {v // steps}" for o, v in top))


ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("files", nargs="+")
ap.add_argument("--top", type=int, default=12)
ap.add_argument("--ops", type=int, metavar="STEPS")
args = ap.parse_args()
for p in args.files:
    if args.ops:
        ops(p, args.ops)
    else:
        summary(p, args.top)
