#!/usr/bin/env bash
# Session 11, call 1 (branch issue14-ws): the warp-specialized 64-head kernel (fast_ws.cuh) against
# fast_wg.cuh's, switched by KGATE_SPARSE_MLA_WS (1: FP8 rows, 2: FP8 and BF16; tuning branch only).
# 1. the sparse_mla GPU tests on the ws path; 2. the 28 FlashMLA rows, fast vs FlashMLA, WS=1 then
# (WS=0, the control, in call 1 only); 3. WS=2: 94 rows fast vs baseline (every arm's correctness, BF16 times);
# 4. WS=2: the hardening rows. Build carried as .dev/b. Call 1 hung in every launch of the ws kernel
# (setmaxnreg 208 + 160 + 144 > 3 x 168: the increase waited forever); call 2 is the fixed build;
# call 3 the persistent form (items round-robin, the producer loading indices, Q reloaded per item);
# call 4 the software-pipelined FP8 producer (next block's indices and rows loaded during this one's dequant).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/b; O=/tmp/s11; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( KGATE_SPARSE_MLA_WS=2 timeout 45 $B/kgate_gpu_tests --gtest_filter='*SparseMla*:*sparse_mla*:*FlashMla*' ) > $O/gpu_tests_ws.log 2>&1
rc=$?; echo "gpu tests (ws) rc=$rc $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests_ws.log | tr '\n' ' ')"; grep -E "^\[  FAILED|Failure|error" $O/gpu_tests_ws.log | head -5
[ $rc = 124 ] && { echo "hung: stopping"; tar -C $O -cf $OUT/all.tar .; exit 1; }
for ws in 1; do
  KGATE_SPARSE_MLA_WS=$ws timeout 90 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' \
    --candidate sparse_mla.fast --baseline $FM --policy correct --out $O/fm_ws$ws.json > $O/fm_ws$ws.log 2>&1
  echo "fm ws=$ws rc=$?"; python3 scripts/sparse_mla_table.py $O/fm_ws$ws.json > $O/fm_ws$ws.txt 2>&1; cat $O/fm_ws$ws.txt
done
KGATE_SPARSE_MLA_WS=2 timeout 100 $B/kgate run --quiet --cases cases/sparse_mla_94.json --candidate sparse_mla.fast \
  --baseline sparse_mla.baseline --policy correct --out $O/base_ws2.json > $O/base_ws2.log 2>&1
echo "base ws=2 rc=$?"; python3 scripts/sparse_mla_table.py $O/base_ws2.json > $O/base_ws2.txt 2>&1; tail -3 $O/base_ws2.txt
KGATE_SPARSE_MLA_WS=2 timeout 60 $B/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast \
  --baseline sparse_mla.baseline --policy correct --out $O/hard_ws2.json > $O/hard_ws2.log 2>&1
echo "hard ws=2 rc=$?"; tail -2 $O/hard_ws2.log
tar -C $O -cf $OUT/all.tar .
