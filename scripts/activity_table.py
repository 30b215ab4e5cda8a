#!/usr/bin/env python3
"""Where each arm's time goes, from a receipt's rows' `activity_us` (CUPTI receipts from 37c7182 on).

Usage: activity_table.py RECEIPT [ARM_SUBSTRING]

Per row and arm (those whose name contains ARM_SUBSTRING, default every arm): the arm's protocol
median (the union of its activity per call) and each activity's median per call, its share of
the sum of the activities' medians, and the kernel's readable name (a mangled name's innermost
identifier). Each kernel's own duration counts, so a kernel launched early to wait on another
(programmatic dependent launch) includes the wait: the parts can add up to more than the arm's time.
"""
import json
import re
import sys


def label(name):
    """The innermost identifier of a mangled nested name (as kgate's report prints it)."""
    m = re.match(r"_ZN?", name)
    if not m:
        return name if len(name) <= 60 else name[:57] + "..."
    i, last, nested = m.end(), None, name.startswith("_ZN")
    while i < len(name):
        while i < len(name) and name[i] in "KVL":
            i += 1
        d = re.match(r"\d+", name[i:])
        if not d or int(d.group()) == 0 or int(d.group()) > len(name) - i - len(d.group()):
            break
        j = i + len(d.group())
        last, i = name[j:j + int(d.group())], j + int(d.group())
        if not nested:
            break
    return last or (name if len(name) <= 60 else name[:57] + "...")


def arm_median(row, arm):
    for p in row.get("pairs", []):
        for side in ("baseline", "candidate"):
            if p.get(side) == arm and p.get(side + "_stats"):
                return p[side + "_stats"]["median_us"]
    return None


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    want = sys.argv[2] if len(sys.argv) == 3 else ""
    rows = json.load(open(sys.argv[1]))["body"]["predicate"]["rows"]
    shown = 0
    print(f"{'row':<34} {'arm':<28} {'arm us':>9} {'activity':<44} {'median us':>10} {'share':>6}")
    for row in rows:
        for arm, per in sorted((row.get("activity_us") or {}).items()):
            if want not in arm:
                continue
            total = sum(s["median"] for s in per.values()) or 1.0
            med = arm_median(row, arm)
            short = arm.rsplit(":", 1)[-1]
            for i, (name, s) in enumerate(sorted(per.items(), key=lambda kv: -kv[1]["median"])):
                head = (row["id"][:34], short[:28], f"{med:.2f}" if med is not None and i == 0 else "") if i == 0 else ("", "", "")
                print(f"{head[0]:<34} {head[1]:<28} {head[2]:>9} {label(name)[:44]:<44} {s['median']:>10.3f} {s['median'] / total:>6.1%}")
            shown += 1
    if not shown:
        print("(no row of this receipt records activity_us: made before 37c7182, or not a CUPTI receipt)")


if __name__ == "__main__":
    main()
