#!/usr/bin/env python3
"""ssu table from the two receipts: fast vs baseline ratio, fast / floor time, achieved bandwidth
(the row's work.bytes, the family's model recorded in the receipt, over fast's median; "-" for a
receipt older than schema /3, which records no work).
Usage: ssu_pairs.py VS_BASELINE VS_FLOOR"""
import json, sys

if len(sys.argv) != 3:
    sys.exit(__doc__.strip())

a = {r["id"]: r for r in json.load(open(sys.argv[1]))["body"]["predicate"]["rows"]}
b = {r["id"]: r for r in json.load(open(sys.argv[2]))["body"]["predicate"]["rows"]}
print(f'{"row":44s} {"fast us":>9s} {"base us":>9s} {"ratio":>7s} {"floor us":>9s} {"fast/floor":>10s} {"limit":>6s} {"fast TB/s":>9s}')
for rid, r in a.items():
    pa = r["pairs"][0]
    pb = next(p for p in b[rid]["pairs"] if p["baseline"] == "ssu.floor")
    if pa["ratio"] is None or pb["ratio"] is None:
        print(rid, r["disposition"], b[rid]["disposition"]); continue
    work = r.get("work")
    f = pa["candidate_stats"]["median_us"]
    tbs = f'{work["bytes"] / f / 1e6:9.2f}' if work else f'{"-":>9s}'
    fl = pb["baseline_stats"]["median_us"]
    raw = b[rid]["verdicts"]["raw"]
    lim = raw.get("by_baseline", {}).get("ssu.floor", raw)["limit_value"]
    print(f'{rid:44s} {f:9.2f} {pa["baseline_stats"]["median_us"]:9.2f} {pa["ratio"]:7.3f} {fl:9.2f} '
          f'{pb["candidate_stats"]["median_us"] / fl:10.3f} {1 + lim:6.2f} {tbs}')
