#!/usr/bin/env python3
"""ssu table of a receipt of ssu.fast against FlashInfer's stock kernel, ssu.floor_copy and
ssu.floor (scripts/device/h200_ssu_issue13.sh): per row the medians, FlashInfer / fast (kgate's
ratio) with its 99 % interval's lower bound, fast / floor_copy and fast / floor with the row's
limit, and fast's achieved state bandwidth: the state bytes (the state_bytes term of the work
model in kernels/ssu/config.hpp, recomputed here from the row's params, since the receipt records
only the total with the side inputs) over fast's median;
then the geomeans of the ratio over all rows and over batch >= 32, and the worst margins.
With --near: only the rows nearest each line, comma-separated, for a spread run (the five lowest
interval bounds against FlashInfer, the three rows nearest their floor_copy limit, the four
batch <= 8 rows nearest the floor's).
Usage: ssu_vs_flashinfer.py [--near] RECEIPT"""
import json, math, sys

args = sys.argv[1:]
near = args[:1] == ["--near"]
args = args[1:] if near else args
if len(args) != 1:
    sys.exit(__doc__.strip())
rows = json.load(open(args[0]))["body"]["predicate"]["rows"]


def pair(r, pred):
    return next((p for p in r["pairs"] if pred(p["baseline"])), None)


def limit_value(r, name):
    return r["verdicts"]["raw"].get("by_baseline", {}).get(name, {}).get("limit_value")


def limit(r, name):
    v = limit_value(r, name)
    return f"{1 + v:.2f}" if v is not None else "-"


def near_rows():
    fi_lo, copy_m, floor_m = [], [], []
    for r in rows:
        fi = pair(r, lambda b: "flashinfer" in b)
        if fi is None or fi["ratio"] is None:
            continue
        f = fi["candidate_stats"]["median_us"]
        fi_lo.append((fi["ratio_ci"]["lo"], r["id"]))
        cp, fl = pair(r, lambda b: b == "ssu.floor_copy"), pair(r, lambda b: b == "ssu.floor")
        lim = limit_value(r, "ssu.floor_copy")
        if lim is not None and lim < 0.5:
            copy_m.append((f / cp["baseline_stats"]["median_us"] / (1 + lim), r["id"]))
        if r["params"]["batch"] <= 8:
            floor_m.append((f / fl["baseline_stats"]["median_us"], r["id"]))
    ids = [i for _, i in sorted(fi_lo)[:5]] + [i for _, i in sorted(copy_m)[-3:]] + [i for _, i in sorted(floor_m)[-4:]]
    return ",".join(dict.fromkeys(ids))


if near:
    print(near_rows())
    sys.exit(0)
print(f'{"row":44s} {"fast":>8s} {"flashinf":>8s} {"ratio":>6s} {"lo":>6s} {"copy":>8s} {"f/copy":>6s} {"lim":>5s} '
      f'{"floor":>8s} {"f/floor":>7s} {"lim":>5s} {"TB/s":>5s}')
ratios, big, worst = [], [], []
for r in rows:
    fi = pair(r, lambda b: "flashinfer" in b)
    cp, fl = pair(r, lambda b: b == "ssu.floor_copy"), pair(r, lambda b: b == "ssu.floor")
    if fi is None or fi["ratio"] is None:
        print(f'{r["id"]:44s} {r["disposition"]}')
        continue
    f = fi["candidate_stats"]["median_us"]
    c, fm = cp["baseline_stats"]["median_us"], fl["baseline_stats"]["median_us"]
    p = r["params"]
    owned = p["batch"] - p.get("pad_slots", 0)
    state = 2 * owned * p["nheads"] * 64 * 128 * (2 if p["state_dtype"] == "bf16" else 4)
    print(f'{r["id"]:44s} {f:8.2f} {fi["baseline_stats"]["median_us"]:8.2f} {fi["ratio"]:6.3f} {fi["ratio_ci"]["lo"]:6.3f} '
          f'{c:8.2f} {f / c:6.3f} {limit(r, "ssu.floor_copy"):>5s} {fm:8.2f} {f / fm:7.3f} {limit(r, "ssu.floor"):>5s} '
          f'{state / f / 1e6:5.2f}')
    ratios.append(fi["ratio"])
    worst.append((fi["ratio_ci"]["lo"], r["id"]))
    if p["batch"] >= 32:
        big.append(fi["ratio"])
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
print(f"geomean FlashInfer / fast: {g(ratios):.4f} over {len(ratios)} rows; batch >= 32: {g(big):.4f} over {len(big)} rows")
print("lowest interval bounds: " + ", ".join(f"{i} {lo:.4f}" for lo, i in sorted(worst)[:5]))
