#!/usr/bin/env python3
"""Per-row median kernel times (us) of sparse_mla.fast in the receipts of a folder, one column per
receipt (file name): where a row's time goes, kernel by kernel (the rows' activity_us, CUPTI).
Usage: sparse_mla_kernel_table.py FOLDER"""
import glob
import json
import os
import re
import sys


def short(name):
    m = re.search(r"(sparse_mla_\w+?_kernel)", name)
    return (m.group(1) if m else name[:30]).replace("sparse_mla_", "")


tab = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    if ".samples." in f:
        continue
    run = os.path.basename(f)[:-5]
    for r in json.load(open(f))["body"]["predicate"]["rows"]:
        act = r.get("activity_us", {}).get("sparse_mla.fast", {})
        if act:
            tab.setdefault(r["id"][:6], {})[run] = " + ".join(f"{short(k)} {x['median']:.2f}" for k, x in act.items())
print("per-row median kernel times (us) of sparse_mla.fast, by run")
for row, runs in tab.items():
    print(row, " | ".join(f"{run}: {s}" for run, s in sorted(runs.items())))
