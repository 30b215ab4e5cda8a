#!/usr/bin/env python3
"""One line per receipt of `kgate carryover`: per baseline, the recorded geomean ratio, the ratio over the samples
timed right after the other arm and over the repeats, and each arm's geomean carryover; then, with --rows, each row's
after-other and repeat ratios. For A/B folders of many receipts (a device call's runs), so builds can be compared on
both kinds of sample. Every number comes from `kgate carryover --json` (the receipts are audited by it).
Usage: carryover_summary.py [--kgate PATH] [--rows] RECEIPT.json..."""
import argparse
import json
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kgate", default=os.path.join(os.path.dirname(__file__), "..", "build", "kgate"))
    ap.add_argument("--rows", action="store_true", help="also each row's after-other and repeat ratios")
    ap.add_argument("receipts", nargs="+")
    args = ap.parse_args()
    rc = 0
    for path in args.receipts:
        if path.endswith(".samples.json"):
            continue
        p = subprocess.run([args.kgate, "carryover", path, "--json"], capture_output=True, text=True)
        name = os.path.basename(path)[:-5] if path.endswith(".json") else path
        if p.returncode != 0:
            print(f"{name}: kgate carryover exit {p.returncode}: {p.stderr.strip()[:200]}")
            rc = 1
            continue
        j = json.loads(p.stdout)
        for base, g in j["by_baseline"].items():
            print(f"{name:<28} vs {base.split(':')[-1]:<22} rows {g['rows']:3d}  ratio {g['geomean_ratio']:.3f}  "
                  f"after other {g['geomean_ratio_after_other']:.3f}  repeats {g['geomean_ratio_repeat']:.3f}  "
                  f"carryover cand {100 * (g['geomean_candidate_carryover_ratio'] - 1):+.1f}% "
                  f"base {100 * (g['geomean_baseline_carryover_ratio'] - 1):+.1f}%")
        if args.rows:
            for pr in j["pairs"]:
                def r3(x):
                    return f"{x:.3f}" if x is not None else "-"
                print(f"  {pr['row'][:40]:<40} ratio {r3(pr['ratio'])}  after other {r3(pr['ratio_after_other'])}  "
                      f"repeats {r3(pr['ratio_repeat'])}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
