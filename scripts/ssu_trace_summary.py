#!/usr/bin/env python3
"""Summarizes the per-warp stamps of the ssu trace arms (branch issue13-b1diag, kDiagTrace; each
file holds the last launch of one arm: per warp 8 little-endian uint64 = clock64 at entry, after
the slot arrived, after the state arrived, after the side inputs arrived, at the end; globaltimer
at entry and end; smid). Usage: ssu_trace_summary.py DIR... (each DIR: one row's *.bin files)."""
import glob
import os
import struct
import sys


def q(v):
    v = sorted(v)
    return f'{v[len(v) // 10]:6.0f} {v[len(v) // 2]:6.0f} {v[(9 * len(v)) // 10]:6.0f} {v[-1]:6.0f}'


for d in sys.argv[1:]:
    print('==', os.path.basename(d.rstrip('/')))
    for f in sorted(glob.glob(os.path.join(d, '*.bin'))):
        raw = open(f, 'rb').read()
        w = [struct.unpack_from('<8Q', raw, 64 * i) for i in range(len(raw) // 64)]
        w = [x for x in w if x[0] and x[4] >= x[0]]
        name = os.path.basename(f)
        if not w:
            print(' ', name, 'no stamps')
            continue
        g0 = min(x[5] for x in w)
        print(f'  {name:18s} warps {len(w)}  cycles from entry p10/p50/p90/max: slot {q([x[1] - x[0] for x in w])} | '
              f'state {q([x[2] - x[0] for x in w])} | side {q([x[3] - x[0] for x in w])} | end {q([x[4] - x[0] for x in w])}')
        print(f'  {"":18s} globaltimer ns: entry offsets p10/p50/p90/max {q([x[5] - g0 for x in w])} ; end offsets '
              f'{q([x[6] - g0 for x in w])} ; SMs {len(set(x[7] for x in w))}')
        sm = {}
        for x in w:
            sm.setdefault(x[7], []).append(x)
        spans = [max(y[4] for y in v) - min(y[0] for y in v) for v in sm.values()]
        print(f'  {"":18s} per-SM span cycles (first entry to last end) p10/p50/p90/max {q(spans)}')
