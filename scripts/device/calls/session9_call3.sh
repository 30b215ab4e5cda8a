#!/usr/bin/env bash
# Session 9, call 3 (build carried as .dev/b): Nsight Compute warp-stall breakdown of ssu.fast and
# ssu.floor on the BF16 batch-1 rows (ncu flushes caches before each replay, like kgate's cold L2):
# which stall holds fast's ~0.6 us over the floor (instruction fetch, scoreboard, ...). One tar back.
set -uo pipefail
B=$PWD/.dev/b; O=/tmp/c3; mkdir -p $O; export KGATE_SOURCE_DIR=$PWD
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio|gpu__time_duration\.sum|smsp__inst_executed\.sum|sm__warps_launched\.sum'
for row in ssu-nemotron-h-bf16-b1 ssu-granite-like-bf16-b1; do
  for k in ssu_fast_kernel ssu_floor_kernel; do
    timeout 90 ncu --clock-control none --kernel-name "regex:$k" --launch-skip 2 --launch-count 3 --metrics "$M" --csv --page raw \
      $B/kgate run --quiet --no-peaks --cases cases/ssu.json --rows "$row" --candidate ssu.fast --baseline ssu.floor \
      --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --out $O/r_${row}_$k.json > $O/ncu_${row}_$k.csv 2>&1
    echo "ncu $row $k rc=$?"
  done
done
python3 - $O/ncu_*.csv <<'PY'
import csv, sys, io
for f in sys.argv[1:]:
    lines = [l for l in open(f) if l.startswith('"')]
    rows = list(csv.reader(io.StringIO(''.join(lines))))
    if len(rows) < 3: print(f, 'no data'); continue
    hdr, data = rows[0], rows[2:]
    print('==', f.split('/')[-1])
    for i, h in enumerate(hdr):
        if h.startswith(('smsp__average', 'gpu__time', 'smsp__inst', 'sm__warps')):
            vals = [d[i] for d in data]
            try:
                if h.startswith('smsp__average') and max(float(v) for v in vals) < 0.05: continue
            except ValueError: pass
            print(f'  {h.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", "")}: {" ".join(vals)}')
PY
rm -f $O/r_*; tar -C $O -cf $OUT/c3.tar .
