#!/usr/bin/env python3
"""Prints an ssu receipt as a table: fast vs baseline vs floor, achieved floor bandwidth.
Usage: ssu_table.py RECEIPT (pairs in any order; arms named ssu.baseline / ssu.floor)."""
import json, sys

r = json.load(open(sys.argv[1]))["body"]["predicate"]
print(f'{"row":40s} {"cand us":>9s} {"base us":>9s} {"floor us":>9s} {"c/base":>7s} {"c/floor":>7s} {"floor TB/s":>10s}')
for row in r["rows"]:
    if row["disposition"] != "passed":
        print(row["id"], row["disposition"], row["error"],
              [(c["arm"], c["passed"], c["worst"], c["note"]) for c in row["correctness"]])
        continue
    pairs = {p["baseline"]: p for p in row["pairs"]}
    p = row["params"]
    esz = 2 if p["state_dtype"] == "bf16" else 4
    nbytes = 2 * (p["batch"] - p["pad_slots"]) * p["nheads"] * 64 * 128 * esz
    cand = row["pairs"][0]["candidate_stats"]["median_us"]
    base = pairs.get("ssu.baseline", {}).get("baseline_stats", {}) or {}
    flo = pairs.get("ssu.floor", {}).get("baseline_stats", {}) or {}
    b, f = base.get("median_us"), flo.get("median_us")
    print(f'{row["id"]:40s} {cand:9.2f} {b or 0:9.2f} {f or 0:9.2f} {cand / b if b else 0:7.3f} {cand / f if f else 0:7.3f}'
          f' {nbytes / f / 1e6 if f else 0:10.2f}')
