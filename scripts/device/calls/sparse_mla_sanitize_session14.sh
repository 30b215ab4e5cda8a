#!/usr/bin/env bash
# Session 14 sanitizer call (branch issue14-membar, the build carried as .dev/n, the probe as .dev/r):
# memcheck on hardening rows, racecheck one row per run on warp-specialized (h128 and h64) and lockstep
# rows, and the named-barrier racecheck probe, modes 0-5 (scripts/device/diag/named_barrier_racecheck.cu).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/s14san; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
( timeout 100 bash -c "OUT=$O; source scripts/device/env.sh $B; sanitize sanitizer_mla cases/sparse_mla_hardening.json '*-offset-concat-pad,mla-hard-fp8-h128-all-invalid,mla-hard-fp8-h64-one-token-offset' sparse_mla.fast sparse_mla.baseline,sparse_mla.floor" ); echo "mla sanitize rc=$?"
bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 60 \
  mla-42-fp8-h128-q5-swa128-v2 mla-46-fp8-h128-q5-swa128-topk4x-v3 mla-01-bf16-h64-q5-swa128-topk4x mla-06-fp8-h64-q5-swa128 mla-09-fp8-h64-q5-swa128-v1
for m in 0 1 2 3 4 5; do
  echo "== mode $m"; $ROOT/.dev/r/named_barrier_racecheck $m
  timeout 60 compute-sanitizer --tool racecheck --racecheck-report all $ROOT/.dev/r/named_barrier_racecheck $m 2>&1 | tail -25
done > $O/racecheck_probe.txt 2>&1
grep -E "^== mode|RACECHECK SUMMARY|mode [0-5]:" $O/racecheck_probe.txt
tar -C $O -cf $OUT/sanitize.tar .
