#!/usr/bin/env python3
"""Timer accuracy table from a calib receipt: cupti vs the kernel's own clock, vs events, A/A ratio.
Usage: calib_table.py CALIB_RECEIPT [WARM_COPY_RECEIPT]"""
import json, sys

r = json.load(open(sys.argv[1]))["body"]["predicate"]
rows = {row["id"]: row for row in r["rows"]}
empty = rows.get("spin-0us")
e0 = empty["pairs"][0]["candidate_stats"]["median_us"] if empty else 0.0
print(f"timer {r['timer']}; empty-kernel (spin-0us) cupti median {e0:.3f} us")
print(f'{"row":24s} {"cupti":>10s} {"self":>10s} {"cupti/self-1":>12s} {"(cupti-empty)/self-1":>20s} {"events":>10s} {"ev-cupti":>9s} {"A/A ratio":>9s} {"drift":>7s}')
for rid, row in rows.items():
    p = row["pairs"][0]
    if p["candidate_stats"] is None:
        print(rid, row["disposition"], row["error"]); continue
    c = p["candidate_stats"]["median_us"]
    sf = (row.get("self_clock_us") or {}).get("calib.spin", {}).get("median")
    ev = (row.get("events_timer_us") or {}).get("calib.spin", {}).get("median")
    a = f"{c / sf - 1:+.4f}" if sf and sf > 0.1 else "-"
    b = f"{(c - e0) / sf - 1:+.4f}" if sf and sf > 0.1 else "-"
    print(f'{rid:24s} {c:10.3f} {sf if sf else 0:10.3f} {a:>12s} {b:>20s} {ev or 0:10.3f} {(ev or 0) - c:9.3f} {p["ratio"]:9.4f} {p["drift"]:7.4f}')
if len(sys.argv) > 2:
    w = json.load(open(sys.argv[2]))["body"]["predicate"]
    for row in w["rows"]:
        cold = rows[row["id"]]["pairs"][0]["candidate_stats"]["median_us"]
        warm = row["pairs"][0]["candidate_stats"]["median_us"]
        print(f'{row["id"]}: cold {cold:.3f} us, warm {warm:.3f} us, cold > warm: {cold > warm}')
