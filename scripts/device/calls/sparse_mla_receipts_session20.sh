#!/usr/bin/env bash
# Session 20: receipts of 8c5c9cd (the FP8 producer without per-unit branches, scaling in BF16).
# Carried: .dev/r/{kgate,kgate_gpu_tests} (the build) and the FlashMLA export as .dev/fm. The sparse_mla GPU
# tests (with the export); racecheck on a planned and a queue row; the three receipts
# (scripts/device/h200_sparse_mla.sh); memcheck on warp-specialized rows (the producer changed) and a lockstep row.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/r; O=/tmp/m20; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
export FM_LIB=$ROOT/.dev/fm/libkgate_flashmla_sparse.so
FM=export:$FM_LIB:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/m20.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( KGATE_FLASHMLA_EXPORT=$FM_LIB timeout 100 $B/kgate_gpu_tests --gtest_filter='*SparseMla*:*FlashMla*' ) > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
OUT=$O/r timeout 240 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
timeout 120 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 50 \
  'mla-35-*' 'mla-42-*'
source scripts/device/sparse_mla_checks.sh
mla_memcheck 'mla-06-*,mla-10-*,mla-35-*,mla-42-*'
