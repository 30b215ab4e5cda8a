#!/usr/bin/env bash
# Session 16, call 1 (branch issue14-combine): the combine kernel as two warps per (token, head)
# with every independent load issued first. A/B of main 2f7aab2's build (.dev/b) against the
# branch (.dev/n) on the 28 FlashMLA rows, order b n b n (scripts/device/ab_runs.sh); the branch's
# GPU tests; the branch on the 94 rows and the hardening rows against the baseline (correctness of
# every row through the new combine, and the ratios).
set -uo pipefail
ROOT=$PWD; O=/tmp/s16c1; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( timeout 150 $ROOT/.dev/n/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
source scripts/device/ab_runs.sh
ab_runs fm 'mla-*-fp8-h64-*,mla-*-fp8-h128-*'
paste <(awk '{print substr($1,1,6), $2}' $O/fm_b_1.txt) <(awk '{print $2}' $O/fm_n_1.txt) <(awk '{print $2}' $O/fm_b_2.txt) <(awk '{print $2, $3, $4}' $O/fm_n_2.txt) | head -30
tail -1 $O/fm_b_2.txt; tail -1 $O/fm_n_2.txt
for f in base94:sparse_mla_94 hard:sparse_mla_hardening; do
  n=${f%%:*}; c=${f#*:}
  timeout 120 $ROOT/.dev/n/kgate run --quiet --cases cases/$c.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
    --policy correct,strict --out $O/$n.json > $O/$n.log 2>&1; echo "$n rc=$?: $(grep -E 'pass policy' $O/$n.log | cut -c1-220)"
  python3 scripts/sparse_mla_table.py $O/$n.json > $O/$n.txt 2>&1; tail -1 $O/$n.txt
done
tar -C $O -cf $OUT/combine.tar .
