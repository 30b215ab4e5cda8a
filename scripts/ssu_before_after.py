#!/usr/bin/env python3
"""Per row, ssu.fast's median and its time over ssu.floor in two receipts of the same campaign
(before and after a change), and the change of fast/floor.
Usage: ssu_before_after.py BEFORE AFTER"""
import json, math, sys

if len(sys.argv) != 3:
    sys.exit(__doc__.strip())


def rows(path):
    out = {}
    for r in json.load(open(path))["body"]["predicate"]["rows"]:
        p = next((p for p in r["pairs"] if p["baseline"] == "ssu.floor"), None)
        if p and p["ratio"] is not None:
            out[r["id"]] = (p["candidate_stats"]["median_us"], p["candidate_stats"]["median_us"] / p["baseline_stats"]["median_us"])
    return out


a, b = rows(sys.argv[1]), rows(sys.argv[2])
print(f'{"row":44s} {"fast us":>9s} {"fast us":>9s} {"fast/floor":>10s} {"fast/floor":>10s} {"change":>7s}')
print(f'{"":44s} {"before":>9s} {"after":>9s} {"before":>10s} {"after":>10s} {"":>7s}')
logs = []
for rid in a:
    if rid not in b:
        print(rid, "missing after"); continue
    (fa, ra), (fb, rb) = a[rid], b[rid]
    logs.append(math.log(rb / ra))
    print(f'{rid:44s} {fa:9.2f} {fb:9.2f} {ra:10.4f} {rb:10.4f} {100 * (rb / ra - 1):+6.2f}%')
if logs:
    ch = [math.exp(x) - 1 for x in logs]
    print(f'{len(logs)} rows: geomean change of fast/floor {100 * (math.exp(sum(logs) / len(logs)) - 1):+.2f}%, '
          f'range {100 * min(ch):+.2f}% .. {100 * max(ch):+.2f}%')
