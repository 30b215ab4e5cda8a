#!/usr/bin/env bash
# Session 22, call 7: receipts of aeb2600 (d2156e9's kernels; model1.cuh now among the arms' digested sources, which
# changed family.cpp and so staled d2156e9's receipts). Build carried as .dev/r22b, the FlashMLA export as .dev/fm.
# The sparse_mla GPU tests; the three receipts (scripts/device/h200_sparse_mla.sh); three more runs of the rows near
# the line. No sanitizer runs: the kernels are d2156e9's, whose racecheck and memcheck are in logs/*_d2156e9.*.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/r22b; TAG=m22b; O=/tmp/$TAG; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
export FM_LIB=$ROOT/.dev/fm/libkgate_flashmla_sparse.so
FM=export:$FM_LIB:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/$TAG.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( KGATE_FLASHMLA_EXPORT=$FM_LIB timeout 120 $B/kgate_gpu_tests --gtest_filter='*SparseMla*:*FlashMla*' ) > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
OUT=$O/r timeout 240 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
source scripts/device/sparse_mla_checks.sh
mla_near "mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-89-*"
