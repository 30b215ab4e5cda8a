#!/usr/bin/env bash
# Session 18 (branch issue14-racecheck): the warp-specialized kernel with warpgroup 0's Q sync and
# the producer's queue-slot sync as mbarriers (the racecheck probe's mode 6) instead of 128-thread
# named barriers. Carried: .dev/m/{kgate,kgate_gpu_tests} (the branch's build) and the FlashMLA
# export. The sparse_mla GPU tests; racecheck one row per run on three warp-specialized rows (each
# reported 12-36 hazards before) and one lockstep row; then the three receipts
# (scripts/device/h200_sparse_mla.sh), memcheck on four rows, three more runs of the near rows.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/m; O=/tmp/m18; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/m18.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( timeout 100 $B/kgate_gpu_tests --gtest_filter='*SparseMla*' ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
timeout 200 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 60 \
  'mla-42-*' 'mla-46-*' 'mla-01-*' 'mla-06-*'
OUT=$O/r timeout 200 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json \
  --rows 'mla-01-*,mla-06-*,mla-42-*,mla-44-*' --candidate sparse_mla.fast --baseline sparse_mla.floor --groups 1 --m 1 \
  --warmup-calls 1 --warmup-us 0 --policy correct --out $O/san.json > $O/sanitizer_memcheck_rows.log 2>&1
echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' $O/sanitizer_memcheck_rows.log)"; rm -f $O/san*.json
for i in 1 2 3; do
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-10-*,mla-18-*,mla-20-*,mla-23-*,mla-32-*,mla-91-*' \
    --candidate sparse_mla.fast --baseline $FM --policy correct --out $O/near_fm_$i.json > /dev/null 2>&1
  echo "spread $i: $(python3 scripts/sparse_mla_table.py $O/near_fm_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
done
