#!/usr/bin/env bash
# Session 10, call 3 (branch issue13-b1diag, .dev/d): per-SASS-instruction warp-stall sampling
# (Nsight Compute SourceCounters, sampling every 32 cycles) of the batch-1 kernels: the shipped
# small mode, t_share4 (call 2: 1.1 us slower, unexplained), d_cw (call 1: 0.33 us faster) and
# the floor, on ssu-nemotron-h-bf16-b1. Where each kernel's warps wait, instruction by instruction.
set -uo pipefail
rm -rf /tmp/c3; B=$PWD/.dev/d; O=/tmp/c3; mkdir -p $O; export KGATE_SOURCE_DIR=$PWD
row=ssu-nemotron-h-bf16-b1
for arm in ssu.fast ssu.t_share4 ssu.d_cw ssu.floor; do
  k=ssu_fast_kernel; [ $arm = ssu.floor ] && k=ssu_floor_kernel
  base=ssu.floor; [ $arm = ssu.floor ] && base=ssu.fast
  timeout 100 ncu --clock-control none --kernel-name "regex:$k" --launch-skip 3 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section LaunchStats --warp-sampling-interval 0 -o $O/$arm \
    $B/kgate run --quiet --no-peaks --cases cases/ssu.json --rows "$row" --candidate $arm --baseline $base \
    --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --out $O/r_$arm.json > $O/ncu_$arm.log 2>&1
  echo "ncu $arm rc=$?"
  ncu -i $O/$arm.ncu-rep --page source --csv --print-source sass > $O/src_$arm.csv 2>$O/src_$arm.err
  ncu -i $O/$arm.ncu-rep --page details --csv > $O/det_$arm.csv 2>&1
  echo "  $(wc -l < $O/src_$arm.csv) source lines; $(head -c 300 $O/src_$arm.err)"
done
python3 - $O <<'PY'
import csv, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + '/src_*.csv')):
    rows = list(csv.reader(open(f)))
    if len(rows) < 2: print(f, 'empty'); continue
    h = rows[0]
    def col(name):
        for i, x in enumerate(h):
            if x.strip() == name: return i
        return None
    ci = col('Warp Stall Sampling (All Samples)'); si = col('Source'); ai = col('Address')
    print('==', os.path.basename(f), 'columns:', len(h), 'samples col', ci)
    if ci is None: print(' header:', h[:30]); continue
    data = []
    for r in rows[1:]:
        try: data.append((float(r[ci] or 0), r[ai] if ai is not None else '', r[si]))
        except (ValueError, IndexError): pass
    tot = sum(d[0] for d in data)
    print(f'  total samples {tot:.0f}, instructions {len(data)}')
    for i, (n, a, s) in enumerate(data):
        if n >= 0.01 * tot: print(f'  {i:4d} {a:>6} {n:7.0f} {100*n/tot:5.1f}%  {s[:90]}')
PY
rm -f $O/r_*; tar -C $O -cf $OUT/c3.tar .
