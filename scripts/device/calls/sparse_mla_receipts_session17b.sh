#!/usr/bin/env bash
# Session 17, second receipts call (branch issue14-prefetch, the build carried as build-dev/p, the tree at the
# commit INDEX.md names): the FP8 producer loads indices two blocks ahead. First an A/B against 6a1e8c8
# (build-dev/r) on the 28 FlashMLA rows, order p r p r; then as sparse_mla_receipts_session17.sh.
# GPU tests, scripts/device/h200_sparse_mla.sh (the three receipts, audit, gate, tables), three more
# runs of the rows nearest their lines, memcheck on mla-01 (the row that changed kernel), mla-06
# (lockstep, split), mla-42 (warp-specialized, one split) and mla-44 (warp-specialized, split).
set -uo pipefail
ROOT=$PWD; B=$ROOT/build-dev/p; O=/tmp/r17b; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/receipts.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
for i in 1 2; do for v in p r; do
  timeout 60 $ROOT/build-dev/$v/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' \
    --candidate sparse_mla.fast --baseline "$FM" --policy correct --out $O/ab_${v}_$i.json > $O/ab_${v}_$i.log 2>&1
  echo "ab $v $i rc=$?: $(python3 scripts/sparse_mla_table.py $O/ab_${v}_$i.json 2>&1 | tail -1 | cut -c1-150)"
done; done
( timeout 150 $B/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
OUT=$O/r timeout 220 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
for i in 1 2 3; do
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-10-*,mla-18-*,mla-20-*,mla-23-*,mla-32-*,mla-91-*' \
    --candidate sparse_mla.fast --baseline $FM --policy correct --out $O/near_fm_$i.json > /dev/null 2>&1
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-00-*,mla-01-*,mla-15-*,mla-24-*,mla-64-*,mla-73-*' \
    --candidate sparse_mla.fast --baseline sparse_mla.baseline --policy correct --out $O/near_base_$i.json > /dev/null 2>&1
  echo "spread $i: $(python3 scripts/sparse_mla_table.py $O/near_fm_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}') | $(python3 scripts/sparse_mla_table.py $O/near_base_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
done
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json \
  --rows 'mla-01-*,mla-06-*,mla-42-*,mla-44-*' --candidate sparse_mla.fast --baseline sparse_mla.floor --groups 1 --m 1 \
  --warmup-calls 1 --warmup-us 0 --policy correct --out $O/san.json > $O/sanitizer_memcheck_rows.log 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' $O/sanitizer_memcheck_rows.log)"; rm -f $O/san*.json
