#!/usr/bin/env bash
# Session 19: the warp-specialized kernel's length-balanced plan; run at 5b9a949 (call 5), 538173e (call 8), df7176a (call 10)
# and aa8b1c5 (call 11, the mends after reading the change).
# Carried: .dev/m/{kgate,kgate_gpu_tests} (the build) and the FlashMLA export. The sparse_mla
# GPU tests (with the export); racecheck on two planned rows, one queue row and one lockstep row; the
# three receipts (scripts/device/h200_sparse_mla.sh); memcheck on planned and other rows; three more
# runs of the rows near 1 against FlashMLA.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/m; O=/tmp/m19; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
export FM_LIB=$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so
FM=export:$FM_LIB:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/m19.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( KGATE_FLASHMLA_EXPORT=$FM_LIB timeout 150 $B/kgate_gpu_tests --gtest_filter='*SparseMla*:*FlashMla*' ) > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
timeout 200 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 50 \
  'mla-35-*' 'mla-10-*' 'mla-42-*' 'mla-06-*'
OUT=$O/r timeout 240 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
source scripts/device/sparse_mla_checks.sh  # (the call ran these two inline)
mla_memcheck 'mla-01-*,mla-06-*,mla-10-*,mla-35-*,mla-42-*,mla-44-*'
mla_near 'mla-10-*,mla-11-*,mla-19-*,mla-20-*,mla-22-*,mla-23-*,mla-91-*'
