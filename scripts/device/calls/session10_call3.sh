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
# The summary in receipts/sm_90/logs/ssu_b1_stall_sampling_session10.txt was printed by the python
# below, run here on the returned CSVs; the version that ran on the device looked for the column
# names in the CSV's first line (the kernel name) and printed nothing useful.
python3 - $O/src_ssu.fast.csv $O/src_ssu.d_cw.csv $O/src_ssu.t_share4.csv $O/src_ssu.floor.csv <<'PY'
import csv, os, sys
for f in sys.argv[1:]:
    rows = list(csv.reader(open(f)))[1:]  # line 1 names the kernel
    h = rows[0]
    ci, si = h.index('Warp Stall Sampling (All Samples)'), h.index('Source')
    st = [i for i, x in enumerate(h) if x.startswith('stall_') and 'Not Issued' not in x]
    data = []
    for r in rows[1:]:
        try: data.append((float(r[ci] or 0), r[si].strip(), {h[i][6:]: float(r[i] or 0) for i in st}))
        except (ValueError, IndexError): pass
    tot = sum(d[0] for d in data)
    agg = {}
    for d in data:
        for k, v in d[2].items(): agg[k] = agg.get(k, 0) + v
    print('==', os.path.basename(f), f'total samples {tot:.0f}, instr {len(data)}; by reason:',
          ', '.join(f'{k} {v:.0f}' for k, v in sorted(agg.items(), key=lambda x: -x[1]) if v > 0.01 * tot))
    cum = 0
    for i, (n, s, d) in enumerate(data):
        cum += n
        if n >= 0.015 * tot:
            top = ', '.join(f'{k} {v:.0f}' for k, v in sorted(d.items(), key=lambda x: -x[1])[:2] if v > 0)
            print(f'  {i:4d} {n:6.0f} {100*n/tot:5.1f}% cum {100*cum/tot:5.1f}%  {s[:60]:60s} [{top}]')
PY
rm -f $O/r_*; tar -C $O -cf $OUT/c3.tar .
