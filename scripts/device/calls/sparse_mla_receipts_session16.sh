#!/usr/bin/env bash
# Session 16, call 2 (branch issue14-combine, the build carried as .dev/n, the tree at the commit
# INDEX.md names): GPU tests, scripts/device/h200_sparse_mla.sh (the three receipts, audit, gate,
# tables), three more runs of the rows nearest their lines, compute-sanitizer memcheck (and
# racecheck, which may run past its limit) on the rows that exercise the new combine (10 and 9
# splits, the warp-specialized kernel's partials, mma.sync at 8 heads, hardening rows), then tuning
# runs: the split count forced (KGATE_SPARSE_MLA_FAST_SPLITS = 1, 2, 3, 4, 6, 10) on the 56 h64/h128
# rows against the floor, to refit the cost model.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/r16; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( timeout 120 $B/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
OUT=$O/r timeout 200 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
for i in 1 2 3; do
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-10-*,mla-20-*,mla-22-*,mla-23-*,mla-31-*,mla-32-*' \
    --candidate sparse_mla.fast --baseline $FM --policy correct --out $O/near_fm_$i.json > /dev/null 2>&1
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-00-*,mla-01-*,mla-15-*,mla-24-*,mla-64-*,mla-73-*' \
    --candidate sparse_mla.fast --baseline sparse_mla.baseline --policy correct --out $O/near_base_$i.json > /dev/null 2>&1
  echo "spread $i: $(python3 scripts/sparse_mla_table.py $O/near_fm_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}') | $(python3 scripts/sparse_mla_table.py $O/near_base_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
done
( timeout 120 bash -c "OUT=$O; source scripts/device/env.sh $B; sanitize sanitizer_mla_combine cases/sparse_mla_94.json 'mla-07-*,mla-08-*,mla-44-*,mla-55-*' sparse_mla.fast sparse_mla.floor" ); echo "combine rows sanitize rc=$?"
( timeout 80 bash -c "OUT=$O; source scripts/device/env.sh $B; sanitize sanitizer_mla_hard cases/sparse_mla_hardening.json '*-offset-concat-pad,mla-hard-fp8-h128-all-invalid,mla-hard-fp8-h64-one-token-offset' sparse_mla.fast sparse_mla.baseline,sparse_mla.floor" ); echo "hardening sanitize rc=$?"
for n in 1 2 3 4 6 10; do
  KGATE_SPARSE_MLA_FAST_SPLITS=$n timeout 60 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-*-h64-*,mla-*-h128-*' \
    --candidate sparse_mla.fast --baseline sparse_mla.floor --policy correct --out $O/split_$n.json > $O/split_$n.log 2>&1
  echo "splits $n rc=$?: $(grep -E 'pass policy' $O/split_$n.log | cut -c1-160)"
done
tar -C $O -cf $OUT/receipts.tar .
