#!/usr/bin/env bash
# Session 19, call 1 (branch issue14-plan2, the build carried as .dev/n, FlashMLA's export as .dev/fm):
# the warp-specialized kernel's length-balanced plan (kernels/sparse_mla/ws_plan.hpp).
# 1. the sparse_mla GPU tests with the export; 2. the 28 FlashMLA rows, plan as routed (d) against
# the plan forced off (o, KGATE_SPARSE_MLA_WS_PLAN=0: the queue of equal splits, main's path), order
# d o d o; 3. the overhead at 1 and 6 blocks (one run each); 4. the 94 rows and the hardening rows
# against the baseline (correctness of every path, ratios).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/s19c1; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/.dev/fm/libkgate_flashmla_sparse.so:sparse_mla.flashmla
ROWS='mla-*-fp8-h64-*,mla-*-fp8-h128-*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
KGATE_FLASHMLA_EXPORT=$ROOT/.dev/fm/libkgate_flashmla_sparse.so timeout 150 $B/kgate_gpu_tests \
  --gtest_filter='*SparseMla*:*FlashMla*' > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $O/gpu_tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]|Failure' $O/gpu_tests.log | head -8
run() {  # NAME ENV...
  local name=$1; shift
  env "$@" timeout 100 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate sparse_mla.fast \
    --baseline "$FM" --policy correct --out $O/$name.json > $O/$name.log 2>&1
  echo "$name rc=$?: $(grep -E 'pass policy' $O/$name.log | cut -c1-200)"
  python3 scripts/sparse_mla_table.py $O/$name.json > $O/$name.txt 2>&1; tail -1 $O/$name.txt | cut -c1-200
}
for i in 1 2; do
  run d_$i KGATE_X=1
  run o_$i KGATE_SPARSE_MLA_WS_PLAN=0
done
run ov1 KGATE_SPARSE_MLA_WS_OVERHEAD=1
run ov6 KGATE_SPARSE_MLA_WS_OVERHEAD=6
timeout 120 $B/kgate run --quiet --cases cases/sparse_mla_94.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
  --policy correct,strict --out $O/base94.json > $O/base94.log 2>&1
echo "base94 rc=$?: $(grep -E 'pass policy' $O/base94.log | cut -c1-200)"
python3 scripts/sparse_mla_table.py $O/base94.json > $O/base94.txt 2>&1; tail -1 $O/base94.txt | cut -c1-300
timeout 100 $B/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
  --policy correct,strict --out $O/hard.json > $O/hard.log 2>&1
echo "hardening rc=$?: $(grep -E 'pass policy' $O/hard.log | cut -c1-200)"
python3 scripts/sparse_mla_table.py $O/hard.json > $O/hard.txt 2>&1; tail -1 $O/hard.txt | cut -c1-300
rm -f $O/*.json.*; tar -C $O -czf $OUT/s19c1.tgz .
