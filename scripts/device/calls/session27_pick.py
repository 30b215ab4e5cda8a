#!/usr/bin/env python3
"""Session 27: which stack of scripts/device/pending/ takes the receipts, from the A/B runs of session27.sh.

Usage: session27_pick.py DIR BUILD...   (DIR holds NAME_1.json, NAME_2.json for each BUILD; rc and oc always)

The cluster patches (cr, c2 on cr) change only the 2-CTA cluster kernel (sparse_mla_fast_ws_kernel<true, true>) and
occ6 (oc) only the combine kernel, which the cluster rows do not launch. So each is judged on the rows that launch its
kernel in rc's runs: per row the mean over the two runs of the candidate's median, as a ratio to rc's, and their
geomean. A patch is taken only where that geomean is below 0.995 (0.5% faster) and, for c2, 0.5% below cr's too;
oc also must not be slower over all rows (geomean below 1.0). Prints the reasoning, then the stack's name (rc, oc, cr,
cro, c2 or c2o) as the last line.
"""
import glob
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from activity_table import arm_median  # noqa: E402

CAND = "sparse_mla.fast"


def runs(d, build):
    out = []
    for f in sorted(glob.glob(f"{d}/{build}_[0-9].json")):
        rows = json.load(open(f))["body"]["predicate"]["rows"]
        per = {}
        for r in rows:
            med = arm_median(r, CAND)
            if med is not None:
                per[r["id"]] = (med, set((r.get("activity_us") or {}).get(CAND, {})))
        out.append(per)
    return out


def mean_us(rs, row):
    v = [r[row][0] for r in rs if row in r]
    return sum(v) / len(v) if v else None


def score(base, other, rows):
    """Geomean over ROWS of other's mean median over base's, and the row count."""
    logs = []
    for row in rows:
        a, b = mean_us(base, row), mean_us(other, row)
        if a and b:
            logs.append(math.log(b / a))
    return (math.exp(sum(logs) / len(logs)), len(logs)) if logs else (None, 0)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d, builds = sys.argv[1], sys.argv[2:]
    data = {b: runs(d, b) for b in builds}
    rc = data.get("rc") or []
    if not rc:
        print("no runs of rc: the receipts stay rc's")
        print("rc")
        return
    kernels = {}
    for r in rc:
        for row, (_, ks) in r.items():
            kernels.setdefault(row, set()).update(ks)
    cluster = sorted(row for row, ks in kernels.items() if any("ws_kernelILb1ELb1E" in k for k in ks))
    combine = sorted(row for row, ks in kernels.items() if any("combine" in k for k in ks))
    print(f"cluster rows ({len(cluster)}): {' '.join(r[:6] for r in cluster)}")
    print(f"combine rows ({len(combine)}): {' '.join(r[:6] for r in combine)}")
    cl = "rc"
    s = {}
    for b in ("cr", "c2"):
        if data.get(b):
            s[b], n = score(rc, data[b], cluster)
            print(f"{b} vs rc on the cluster rows: geomean {s[b]:.4f} over {n} rows" if s[b] else f"{b}: no common rows")
    if s.get("cr") and s["cr"] < 0.995:
        cl = "cr"
    if s.get("c2") and s["c2"] < 0.995 and s["c2"] < (s.get("cr") or 1.0) * 0.995:
        cl = "c2"
    occ = False
    if data.get("oc"):
        so, n = score(rc, data["oc"], combine)
        sa, na = score(rc, data["oc"], list(kernels))
        print(f"oc vs rc on the combine rows: geomean {so:.4f} over {n} rows; over all rows {sa:.4f} ({na})")
        occ = bool(so and so < 0.995 and sa < 1.0)
    name = {("rc", False): "rc", ("rc", True): "oc", ("cr", False): "cr", ("cr", True): "cro",
            ("c2", False): "c2", ("c2", True): "c2o"}[(cl, occ)]
    print(f"cluster: {cl}; combine occupancy 6: {'yes' if occ else 'no'}")
    print(name)


if __name__ == "__main__":
    main()
