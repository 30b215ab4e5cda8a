#!/usr/bin/env python3
"""Timeline of the warp-specialized sparse_mla kernel from a KGATE_WS_TRACE_FILE (the diagnostic build of
scripts/device/pending/issue14-ws-trace.patch): per slot, the median, min and max over CTAs of its clock64 cycles
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
    print("block  cadence  stage wait  stores  arrive->full  wg0 waited  wg0 step")
    n = max(len(r) for r in rows)
    for k in range(8):
        def d(a, b, clip=False, first=True):
            if not first and k == 0:
                return "      -"
            def f(r):
                if len(r) <= max(a, b) or not r[a] or not r[b]:
                    return None
                return max(0, r[a] - r[b]) if clip else r[a] - r[b]
            v = [x for x in map(f, rows) if x is not None]
            return f"{statistics.median(v) / mhz:7.2f}" if v else "      -"
        print(f"{k:5d}  {d(5 + k, 4 + k, first=False)}  {d(40 + k, 4 + k, True, False) if n > 47 else '      -'}     "
              f"{d(48 + k, 40 + k) if n > 55 else '      -'}  {d(32 + k, 5 + k, True)}       {d(32 + k, 16 + k, True, False)}"
              f"     {d(17 + k, 16 + k, first=False)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--mhz", type=float, default=1980.0)
    args = ap.parse_args()
    for f in args.files:
        summarize(f, args.mhz)


if __name__ == "__main__":
    main()
