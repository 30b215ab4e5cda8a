#!/usr/bin/env bash
# Written in session 22 for branch issue14-deqorder (the dequantized-once pass's first CTA computes a sorted queue's
# token order, one launch fewer; the review's fixes: 64-bit MODEL1 offsets, the combine's aligned output); not run
# there (the device was refused). Build the branch's head (merged onto main) as .dev/r22c, aeb2600's build as .dev/r22b,
# the FlashMLA export as .dev/fm. In order of need: the sparse_mla GPU tests; the three receipts; three more runs of the
# rows near the line; one run each of the sorted prefill rows with both builds; memcheck of mla-91 (the route with the
# sort in the pass).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/r22c; TAG=m22c; O=/tmp/$TAG; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
export FM_LIB=$ROOT/.dev/fm/libkgate_flashmla_sparse.so
FM=export:$FM_LIB:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/$TAG.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( KGATE_FLASHMLA_EXPORT=$FM_LIB timeout 90 $B/kgate_gpu_tests --gtest_filter='*SparseMla*' ) > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
OUT=$O/r timeout 200 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
source scripts/device/sparse_mla_checks.sh
mla_near "mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-89-*"
for b in r22b r22c; do
  timeout 40 $ROOT/.dev/$b/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-89-*,mla-91-*,mla-93-*' \
    --candidate sparse_mla.fast --baseline "$FM" --policy correct --out "$O/ab_$b.json" > "$O/ab_$b.log" 2>&1
  echo "ab $b: $(python3 scripts/sparse_mla_table.py "$O/ab_$b.json" | awk 'NR>1 && /^mla/{printf "%s %s %s; ", substr($1,1,6), $2, $4}')"
done
mla_memcheck "mla-91-*"
