#!/usr/bin/env python3
"""A/B table of ssu.fast tuning variants against ssu.floor: receipts named VARIANT_RUN.json in
one folder (kgate run --candidate ssu.fast --baseline ssu.floor, one variant per run, runs
interleaved). Per row and variant: fast's median us and fast / floor of each run, then the
geomean of fast / floor per variant over the rows. Usage: ssu_variant_table.py DIR"""
import collections, glob, json, math, os, sys

if len(sys.argv) != 2:
    sys.exit(__doc__.strip())
runs = collections.defaultdict(dict)  # variant -> run -> {row: (fast, floor)}
for f in sorted(g for g in glob.glob(os.path.join(sys.argv[1], "*_*.json")) if not g.endswith(".samples.json")):
    v, r = os.path.basename(f)[:-5].rsplit("_", 1)
    rows = json.load(open(f))["body"]["predicate"]["rows"]
    runs[v][r] = {x["id"]: (x["pairs"][0]["candidate_stats"]["median_us"], x["pairs"][0]["baseline_stats"]["median_us"])
                  for x in rows if x["pairs"] and x["pairs"][0]["candidate_stats"]}
variants = list(runs)
ids = list(dict.fromkeys(i for v in variants for r in runs[v].values() for i in r))
print(f'{"row":36s} ' + " ".join(f"{v:>26s}" for v in variants))
geo = collections.defaultdict(list)
for i in ids:
    cells = []
    for v in variants:
        vals = [runs[v][r][i] for r in sorted(runs[v]) if i in runs[v][r]]
        rat = [f / fl for f, fl in vals]
        geo[v] += rat
        cells.append(" ".join(f"{f:5.2f}/{x:5.3f}" for (f, _), x in zip(vals, rat)))
    print(f"{i:36s} " + " | ".join(cells))
print("geomean fast/floor: " + ", ".join(f"{v} {math.exp(sum(map(math.log, g)) / len(g)):.4f}" for v, g in geo.items()))
