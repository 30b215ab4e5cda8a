#!/usr/bin/env python3
"""Prints every arm's median per row of an ssu receipt, and each arm's time over the floor arm's.
Usage: ssu_arms.py RECEIPT [FLOOR_ARM=ssu.floor]. The candidate's median is taken from its first pair."""
import json, math, sys

r = json.load(open(sys.argv[1]))["body"]["predicate"]
floor_arm = sys.argv[2] if len(sys.argv) > 2 else "ssu.floor"
rows = [row for row in r["rows"] if row["disposition"] == "passed"]
for row in r["rows"]:
    if row["disposition"] != "passed":
        print(row["id"], row["disposition"], row["error"],
              [(c["arm"], c["passed"], c["worst"]) for c in row["correctness"] if not c["passed"]])
if not rows:
    sys.exit(0)
cand = rows[0]["pairs"][0]["candidate"]
arms = [cand] + [p["baseline"] for p in rows[0]["pairs"]]
print(f'{"row":40s}' + "".join(f'{a.replace("ssu.", ""):>10s}' for a in arms) + "   (us, then / " + floor_arm + ")")
logs = {a: [] for a in arms}
for row in rows:
    med = {cand: row["pairs"][0]["candidate_stats"]["median_us"]}
    med.update({p["baseline"]: p["baseline_stats"]["median_us"] for p in row["pairs"]})
    f = med.get(floor_arm)
    line = f'{row["id"]:40s}' + "".join(f'{med[a]:10.2f}' for a in arms)
    if f:
        line += "  |" + "".join(f'{med[a] / f:7.3f}' for a in arms)
        for a in arms:
            logs[a].append(math.log(med[a] / f))
    print(line)
if logs[arms[0]]:
    print(f'{"geomean / floor":40s}' + " " * 10 * len(arms) + "  |" +
          "".join(f'{math.exp(sum(v) / len(v)):7.3f}' for v in logs.values()))
