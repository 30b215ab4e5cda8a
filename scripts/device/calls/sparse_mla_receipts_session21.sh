#!/usr/bin/env bash
# Session 21: receipts of 2110f1d (the FP8 producer's RoPE pieces by cp.async, indices two blocks ahead; the
# dequantized-once route). Carried: .dev/x/{kgate,kgate_gpu_tests} (the build) and the FlashMLA export as .dev/fm.
# The sparse_mla GPU tests (with the export); the three receipts (scripts/device/h200_sparse_mla.sh); racecheck on a
# routed planned row (mla-35), a routed queue row (mla-44) and a queue row the FP8 producer fills (mla-42); memcheck
# on FP8 warp-specialized rows of both kinds and a lockstep row; three more runs of the rows near the line.
# Run again for a later build with BUILD (the .dev folder), TAG (the output's name), RACE_ROWS (replacing the three
# racecheck rows) or RACE_MORE, MEM_MORE and NEAR; SANITIZE=0 skips racecheck and memcheck (a switch added in session
# 23; the calls that ran before it ran both).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/${BUILD:-x}; TAG=${TAG:-m21}; O=/tmp/$TAG; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
export FM_LIB=$ROOT/.dev/fm/libkgate_flashmla_sparse.so
FM=export:$FM_LIB:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/$TAG.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( KGATE_FLASHMLA_EXPORT=$FM_LIB timeout 120 $B/kgate_gpu_tests --gtest_filter='*SparseMla*:*FlashMla*' ) > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
OUT=$O/r timeout 240 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
source scripts/device/sparse_mla_checks.sh
if [ "${SANITIZE:-1}" = 1 ]; then
  set -f; RROWS=(${RACE_ROWS:-mla-35-* mla-44-* mla-42-*} ${RACE_MORE:-}); set +f
  timeout 200 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 50 \
    "${RROWS[@]}"
  mla_memcheck "mla-06-*,mla-10-*,mla-35-*,mla-42-*,mla-44-*${MEM_MORE:-}"
fi
mla_near "${NEAR:-mla-10-*,mla-22-*,mla-32-*,mla-42-*,mla-44-*,mla-89-*}"
