#!/usr/bin/env python3
"""Session 28: which build takes the receipts, from session28.sh's A/B runs (DIR/B_1.json, B_2.json for B in x, nr,
nd; FlashMLA the baseline).

- nr (pending/issue14-noroute-cl.patch): the FP8 rows the 2-CTA cluster takes skip the dequantized-once route. It
  changes the route of mla-89 and mla-93 only. Taken where both are 1% faster than x (ratio below 0.99) and no other
  row is 1% slower.
- nd (nr + pending/issue14-dequant-units.patch: the dequant pass one 16-byte output unit a task, four a thread). It
  changes the rows still on the route (mla-87, -91 and the planned mla-20, -35, -44). Taken over nr where their
  geomean against nr is below 0.995 and none of the rows is 1% slower.
Per row: the mean over the two runs of sparse_mla.fast's union median. A build with a row that did not pass (the
correctness check) is not taken. Prints the reasoning, then x, nr or nd as the last line.
Usage: session28_pick.py DIR"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from activity_table import arm_median  # noqa: E402

CHANGED = ("mla-89-", "mla-93-")


def means(d, build):
    acc, failed = {}, []
    for i in (1, 2):
        path = f"{d}/{build}_{i}.json"
        if not os.path.exists(path):
            failed.append(f"{build}_{i}.json missing")
            continue
        for r in json.load(open(path))["body"]["predicate"]["rows"]:
            if r.get("disposition") != "passed":
                failed.append(f"{build}_{i} {r['id']} {r.get('disposition')}")
            m = arm_median(r, "sparse_mla.fast")
            if m is not None:
                acc.setdefault(r["id"], []).append(m)
    return {k: sum(v) / len(v) for k, v in acc.items()}, failed


def compare(a, b, an, bn):
    out = {}
    for row in sorted(set(a) & set(b)):
        out[row] = b[row] / a[row]
        print(f"{row:<40} {an} {a[row]:8.2f} us  {bn} {b[row]:8.2f} us  {bn}/{an} {out[row]:.4f}")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    (x, fx), (nr, fnr), (nd, fnd) = (means(sys.argv[1], b) for b in ("x", "nr", "nd"))
    for f in fx + fnr + fnd:
        print("not passed: " + f)
    r1 = compare(x, nr, "x", "nr")
    hit = [r for r in r1 if r.startswith(CHANGED)]
    nr_ok = not fnr and len(hit) == 2 and all(r1[r] < 0.99 for r in hit) and \
        all(v <= 1.01 for r, v in r1.items() if not r.startswith(CHANGED))
    print(f"nr: {'taken' if nr_ok else 'not taken'}")
    r2 = compare(nr, nd, "nr", "nd")
    routed = [v for r, v in r2.items() if not r.startswith(CHANGED)]
    gm = math.exp(sum(map(math.log, routed)) / len(routed)) if routed else float("nan")
    dq_ok = not fnd and bool(routed) and gm < 0.995 and all(v <= 1.01 for v in r2.values())
    print(f"nd over nr on the routed rows: geomean {gm:.4f}; {'taken' if dq_ok else 'not taken'}")
    print("nd" if nr_ok and dq_ok else "nr" if nr_ok else "x")


if __name__ == "__main__":
    main()
