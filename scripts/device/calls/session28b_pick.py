#!/usr/bin/env python3
"""Session 28, second call: which of pending/issue14-sinks-early.patch (sk: the warp-specialized kernel loads each item's
sinks at the item's start; they were loaded at its emit, on the item's critical path) and
pending/issue14-sinks-q-after-p.patch (sq: sk, and the next item's Q loads after the last block's P stores, not right
after its S) takes the receipts, from session28b.sh's runs of x, sk and sq (DIR/B_1.json, B_2.json; the 28 FlashMLA
rows). Per row: the mean over the two runs of sparse_mla.fast's union median, over x's. A build qualifies where mla-89
is 0.5% faster, no row is 1% slower, the 28 rows' geomean is below 1, and every row passed (correctness); of the
qualified, the lower geomean. Prints the reasoning, then x or the picked build as the last line.
The candidates are BUILD... (default: sk sq); session 29's calls pass theirs. --slower (default 1.01) and --m89
(default 0.995) move the two limits: session 29's second call allows a row 1.5 % slower where mla-89 is 1 % faster
(its first call found the ring 2.9 % faster on mla-89 and 1.1 % slower on mla-19, whose margin on FlashMLA is 18 %).
Usage: session28b_pick.py DIR [BUILD...] [--slower R] [--m89 R]"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from session28_pick import compare, means  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument("dir")
    ap.add_argument("builds", nargs="*", default=["sk", "sq"])
    ap.add_argument("--slower", type=float, default=1.01)
    ap.add_argument("--m89", type=float, default=0.995)
    args = ap.parse_args()
    x, fx = means(args.dir, "x")
    for f in fx:
        print("not passed: " + f)
    best, best_gm = "x", 1.0
    for b in args.builds:
        y, fy = means(args.dir, b)
        for f in fy:
            print("not passed: " + f)
        r = compare(x, y, "x", b)
        gm = math.exp(sum(map(math.log, r.values())) / len(r)) if r else float("nan")
        m89 = [v for k, v in r.items() if k.startswith("mla-89-")]
        ok = not fy and bool(m89) and m89[0] < args.m89 and all(v <= args.slower for v in r.values()) and gm < 1.0
        print(f"{b}/x geomean {gm:.4f} over {len(r)} rows; mla-89 {m89[0] if m89 else float('nan'):.4f}: "
              f"{'qualifies' if ok else 'does not qualify'}")
        if ok and gm < best_gm:
            best, best_gm = b, gm
    print(best)


if __name__ == "__main__":
    main()
