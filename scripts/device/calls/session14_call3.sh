#!/usr/bin/env bash
# Session 14, call 3 (branch issue14-membar): call 2's kernels with the warp-specialized CTA's first
# item static (blockIdx.x; the queue hands out the rest), so no atomic before the first gather, and
# from two items per CTA the queue in tokens by active length, longest first (sparse_mla_ws_order_kernel).
# (a) A/B of main 584027e (.dev/b) against the branch (.dev/n) on the 28 FlashMLA rows, order b n b n; (b) GPU tests; (c) racecheck on warp-specialized and lockstep rows;
# (d) the named-barrier racecheck probe, modes 0-5.
set -uo pipefail
ROOT=$PWD; O=/tmp/s14c3; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( timeout 120 $ROOT/.dev/n/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
for i in 1 2; do for v in b n; do
  timeout 100 $ROOT/.dev/$v/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' --candidate sparse_mla.fast \
    --baseline "$FM" --policy correct --out $O/fm_${v}_$i.json > $O/fm_${v}_$i.log 2>&1
  echo "$v $i rc=$?: $(grep -E 'pass policy' $O/fm_${v}_$i.log | cut -c1-250)"
  python3 scripts/sparse_mla_table.py $O/fm_${v}_$i.json > $O/fm_${v}_$i.txt 2>&1
done; done
paste <(awk '{print substr($1,1,6), $2}' $O/fm_b_1.txt) <(awk '{print $2}' $O/fm_n_1.txt) <(awk '{print $2}' $O/fm_b_2.txt) <(awk '{print $2, $3, $4}' $O/fm_n_2.txt) | head -30
tail -1 $O/fm_b_2.txt; tail -1 $O/fm_n_2.txt
bash scripts/device/racecheck_rows.sh $ROOT/.dev/n $O/racecheck cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 60 \
  mla-42-fp8-h128-q5-swa128-v2 mla-46-fp8-h128-q5-swa128-topk4x-v3 mla-01-bf16-h64-q5-swa128-topk4x mla-09-fp8-h64-q5-swa128-v1
for m in 0 1 2 3 4 5; do
  echo "== mode $m"; $ROOT/.dev/r/named_barrier_racecheck $m
  timeout 60 compute-sanitizer --tool racecheck --racecheck-report all $ROOT/.dev/r/named_barrier_racecheck $m 2>&1 | tail -25
done > $O/racecheck_probe.txt 2>&1
grep -E "^== mode|RACECHECK SUMMARY|mode [0-5]:" $O/racecheck_probe.txt
tar -C $O -cf $OUT/all.tar .
