#!/usr/bin/env python3
"""Session 28: whether issue14-noroute-cl (nr: the FP8 rows the 2-CTA cluster takes skip the dequantized-once route)
takes the receipts, from session28.sh's A/B runs (DIR/x_1.json, x_2.json, nr_1.json, nr_2.json; FlashMLA the baseline).

The patch changes the route of mla-89 and mla-93 only (unplanned FP8 rows of two 64-head groups that the route took).
Per row the mean over the two runs of sparse_mla.fast's union median, nr over x. nr is taken where both rows are 1%
faster (ratio below 0.99) and no other row is 1% slower. Prints the reasoning, then x or nr as the last line.
Usage: session28_pick.py DIR"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from activity_table import arm_median  # noqa: E402


def means(d, build):
    acc = {}
    for i in (1, 2):
        path = f"{d}/{build}_{i}.json"
        if not os.path.exists(path):
            continue
        for r in json.load(open(path))["body"]["predicate"]["rows"]:
            m = arm_median(r, "sparse_mla.fast")
            if m is not None:
                acc.setdefault(r["id"], []).append(m)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    x, nr = means(sys.argv[1], "x"), means(sys.argv[1], "nr")
    ok, worse = True, []
    for row in sorted(set(x) & set(nr)):
        ratio = nr[row] / x[row]
        target = row.startswith(("mla-89-", "mla-93-"))
        print(f"{row:<40} x {x[row]:8.2f} us  nr {nr[row]:8.2f} us  nr/x {ratio:.4f}{'  (changed route)' if target else ''}")
        if target and ratio >= 0.99:
            ok = False
        if not target and ratio > 1.01:
            worse.append(row)
    if not any(r.startswith(("mla-89-", "mla-93-")) for r in set(x) & set(nr)):
        ok = False
        print("mla-89 or mla-93 missing from the runs")
    if worse:
        ok = False
        print("slower by more than 1%: " + ", ".join(worse))
    print("nr" if ok else "x")


if __name__ == "__main__":
    main()
