#!/usr/bin/env bash
# The device call that made the committed receipts, as it ran (from .dev/, with the build and a copy of
# the commit's tree carried there); kept as the record. The reusable form: scripts/device/h200_sparse_mla.sh.
# call 5: sparse_mla receipts of build 4b721ea (sparse_mla.fast v2, cost model refit): GPU tests, the 94-row campaign
# (fast, baseline, floor), fast vs FlashMLA on the FP8 h64/h128 rows, the hardening rows; audit, gate; memcheck
set -uo pipefail
ROOT=$PWD
S=$ROOT/.dev/s14; B=$ROOT/.dev/m
mkdir -p $S/build-peers/flashmla_sparse && cp build-peers/flashmla_sparse/libkgate_flashmla_sparse.so $S/build-peers/flashmla_sparse/
cd $S && export KGATE_SOURCE_DIR=$S
R=/tmp/r6; mkdir -p $R
FM=export:$S/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
( time timeout 200 $B/kgate_gpu_tests --gtest_filter='*SparseMla*' ) > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|Failure" $OUT/gpu_tests.log | head
/usr/bin/time -f "campaign wall %e s" timeout 240 $B/kgate run --quiet --cases cases/sparse_mla_94.json --candidate sparse_mla.fast \
   --baseline sparse_mla.baseline,sparse_mla.floor --policy cases/policies/sparse_mla_vs_baseline.json --out $R/sparse_mla_fast_vs_baseline.json > $OUT/mla94.log 2>&1
echo "mla94 rc=$?"; grep -E "host time|pass policy|wall" $OUT/mla94.log
timeout 150 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' --candidate sparse_mla.fast \
   --baseline $FM --policy cases/policies/sparse_mla_vs_flashmla.json --out $R/sparse_mla_fast_vs_flashmla.json > $OUT/mla_fm.log 2>&1
echo "fm rc=$?"; grep -E "host time|pass policy" $OUT/mla_fm.log
timeout 150 $B/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
   --policy correct,strict --out $R/sparse_mla_hardening_fast_vs_baseline.json > $OUT/mla_hard.log 2>&1
echo "hard rc=$?"; grep -E "host time|pass policy" $OUT/mla_hard.log
$B/kgate audit $(ls $R/*.json | grep -v samples) > $OUT/audit.log 2>&1; echo "audit rc=$?"
for f in sparse_mla_fast_vs_baseline:sparse_mla_vs_baseline sparse_mla_fast_vs_flashmla:sparse_mla_vs_flashmla ; do
  $B/kgate gate $R/${f%%:*}.json --policy cases/policies/${f##*:}.json --against-tree . > $OUT/gate_${f%%:*}.log 2>&1; echo "gate ${f%%:*} rc=$? $(tail -1 $OUT/gate_${f%%:*}.log)"
done
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_hardening.json \
  --rows '*-offset-concat-pad,mla-hard-bf16-h64-empty-tokens,mla-hard-fp8-h128-all-invalid,mla-hard-fp8-h64-one-token-offset' --candidate sparse_mla.fast --baseline sparse_mla.baseline,sparse_mla.floor --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 \
  --policy correct --out /tmp/san.json > $OUT/memcheck.log 2>&1; echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log)"
$B/kgate gate $R/sparse_mla_hardening_fast_vs_baseline.json --policy correct,strict --against-tree . > $OUT/gate_hard.log 2>&1; echo "gate hard rc=$? $(tail -1 $OUT/gate_hard.log)"
cp $OUT/*.log $R/ ; rm -f $OUT/*.log; tar -C $R -cf $OUT/r6.tar .
for f in sparse_mla_fast_vs_baseline sparse_mla_fast_vs_flashmla sparse_mla_hardening_fast_vs_baseline; do python3 scripts/sparse_mla_table.py $R/$f.json | tail -2 | cut -c1-600; done
