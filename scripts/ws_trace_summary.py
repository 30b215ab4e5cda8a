#!/usr/bin/env python3
"""Timeline of the warp-specialized sparse_mla kernel from a KGATE_WS_TRACE_FILE (the diagnostic build of
scripts/device/pending/ws_trace.py): per slot, the median, min and max over CTAs of its clock64 cycles
after the CTA's entry, in us at --mhz (the SM clock: nvidia-smi's clocks.sm in the call's gpu.txt), and the CTAs'
entry spread (globaltimer, ns).
Usage: ws_trace_summary.py FILE [FILE ...] [--mhz 1980]"""
import argparse
import statistics

SLOTS = {2: "producer: role start", 3: "producer: first indices in", 4: "producer: first rows in"}
SLOTS.update({5 + k: f"producer: block {k} stage arrived" for k in range(8)})
SLOTS[13] = "producer: loop end"
SLOTS.update({14: "wg0: Q in", 15: "wg0: block 0 full", 16: "wg0: S0 done"})
SLOTS.update({17 + k: f"wg0: block {k} P V done" for k in range(8)})
SLOTS.update({25: "wg0: emit start", 26: "wg0: emit done", 27: "wg1: block 0 full", 28: "wg1: last P V done",
              29: "wg1: emit done", 30: "thread 0: before the final cluster sync", 31: "thread 0: exit"})
SLOTS.update({32 + k: f"wg0: block {k} full" for k in range(8)})
SLOTS.update({40 + k: f"producer: block {k} stage free" for k in range(8)})
SLOTS.update({48 + k: f"producer: block {k} rows stored" for k in range(8)})


def summarize(path, mhz):
    lines = open(path).read().splitlines()
    header = [l for l in lines if l.startswith("#")]
    rows = [list(map(int, l.split())) for l in lines if l and not l.startswith("#")]
    print(f"== {path}: {' '.join(header)}; {len(rows)} CTAs")
    if not rows:
        return
    entries = [r[1] for r in rows]
    print(f"entry spread (globaltimer): {(max(entries) - min(entries)) / 1000:.2f} us")
    for slot, name in SLOTS.items():
        vals = [r[slot] for r in rows if len(r) > slot and r[slot] != 0]
        if not vals:
            continue
        us = [v / mhz for v in vals]
        print(f"{slot:2d} {name:42s} median {statistics.median(us):7.2f} us  min {min(us):7.2f}  max {max(us):7.2f}  n {len(us)}")
    # Per block k, medians over CTAs of per-CTA differences (us): the producer's cadence (stage k arrived minus stage
    # k - 1); its wait for the stage to be free; its stores (from the stage free to the last dequant store, which waits
    # for the rows' loads); from its arrive to warpgroup 0's full wait done (the peer's bytes, the RoPE copies); how
    # long warpgroup 0 waited for block k after its P V of block k - 1 (0: the block was there); its step.
    cols = ["cadence", "stage wait", "stores", "arrive->full", "wg0 waited", "wg0 step"]
    print("block" + "".join(f"{c:>14s}" for c in cols))
    for k in range(8):
        # (later slot, earlier slot, clipped at 0, needs block k - 1) per column
        spec = [(5 + k, 4 + k, False, True), (40 + k, 4 + k, True, True), (48 + k, 40 + k, False, False),
                (32 + k, 5 + k, True, False), (32 + k, 16 + k, True, True), (17 + k, 16 + k, False, True)]
        cells = [median_diff(rows, a, b, mhz, clip) if k or not prev else "-" for a, b, clip, prev in spec]
        print(f"{k:5d}" + "".join(f"{c:>14s}" for c in cells))


def median_diff(rows, a, b, mhz, clip):
    """The median over CTAs of slot a minus slot b (us; clipped at 0 if clip), over CTAs that stamped both."""
    v = [r[a] - r[b] for r in rows if len(r) > max(a, b) and r[a] and r[b]]
    v = [max(0, x) for x in v] if clip else v
    return f"{statistics.median(v) / mhz:.2f}" if v else "-"

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--mhz", type=float, default=1980.0)
    args = ap.parse_args()
    for f in args.files:
        summarize(f, args.mhz)


if __name__ == "__main__":
    main()
