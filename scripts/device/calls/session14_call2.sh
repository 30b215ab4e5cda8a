#!/usr/bin/env bash
# Session 14, call 2 (branch issue14-membar): the warp-specialized kernel cut at the active columns
# with an atomic item queue, both consumer warpgroups syncing every named barrier; the lockstep kernel
# cut at the active columns. (a) A/B of main 584027e (.dev/b) against the branch (.dev/n) on the 28
# FlashMLA rows, order b n b n; (b) the branch on all 94 rows and the hardening rows against the
# baseline (correctness of every row); (c) GPU tests; (d) racecheck on warp-specialized and lockstep
# rows, memcheck on hardening rows.
# (The b n b n loop ran inline; it is scripts/device/ab_runs.sh now, the same commands.)
set -uo pipefail
ROOT=$PWD; O=/tmp/s14c2; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( timeout 120 $ROOT/.dev/n/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
source scripts/device/ab_runs.sh
ab_runs fm 'mla-*-fp8-h64-*,mla-*-fp8-h128-*'
paste <(awk '{print substr($1,1,6), $2}' $O/fm_b_1.txt) <(awk '{print $2}' $O/fm_n_1.txt) <(awk '{print $2}' $O/fm_b_2.txt) <(awk '{print $2, $3, $4}' $O/fm_n_2.txt) | head -30
tail -1 $O/fm_b_2.txt; tail -1 $O/fm_n_2.txt
timeout 150 $ROOT/.dev/n/kgate run --quiet --cases cases/sparse_mla_94.json --candidate sparse_mla.fast --baseline sparse_mla.baseline,sparse_mla.floor \
  --policy correct --out $O/base94.json > $O/base94.log 2>&1; echo "94 rc=$?: $(grep -E 'pass policy|wall' $O/base94.log | cut -c1-250 | tr '\n' ' ')"
timeout 100 $ROOT/.dev/n/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
  --policy correct --out $O/hard.json > $O/hard.log 2>&1; echo "hardening rc=$?: $(grep -E 'pass policy' $O/hard.log | cut -c1-250)"
bash scripts/device/racecheck_rows.sh $ROOT/.dev/n $O/racecheck cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 60 \
  mla-42-fp8-h128-q5-swa128-v2 mla-46-fp8-h128-q5-swa128-topk4x-v3 mla-01-bf16-h64-q5-swa128-topk4x mla-09-fp8-h64-q5-swa128-v1
( timeout 90 bash -c "OUT=$O; source scripts/device/env.sh $ROOT/.dev/n; sanitize sanitizer_mla cases/sparse_mla_hardening.json '*-offset-concat-pad,mla-hard-fp8-h128-all-invalid,mla-hard-fp8-h64-one-token-offset' sparse_mla.fast sparse_mla.floor" ); echo "mla sanitize rc=$?"
tar -C $O -cf $OUT/all.tar .
