#!/usr/bin/env bash
# The device call that made the sparse_mla receipts of session 14 (branch issue14-membar, the build
# carried as .dev/n, the tree at the commit INDEX.md names; run after session14_call3.sh in one call):
# GPU tests, scripts/device/h200_sparse_mla.sh (the three receipts, audit, gate, tables), three more
# runs of the rows nearest their lines. Sanitizers: sparse_mla_sanitize_session14.sh (the next call).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/r14; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( timeout 120 $B/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
OUT=$O/r timeout 200 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
for i in 1 2 3; do
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-06-*,mla-08-*,mla-19-*,mla-20-*,mla-23-*,mla-32-*' \
    --candidate sparse_mla.fast --baseline $FM --policy correct --out $O/near_fm_$i.json > /dev/null 2>&1
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-00-*,mla-15-*,mla-24-*,mla-73-*,mla-61-*,mla-64-*' \
    --candidate sparse_mla.fast --baseline sparse_mla.baseline --policy correct --out $O/near_base_$i.json > /dev/null 2>&1
  echo "spread $i: $(python3 scripts/sparse_mla_table.py $O/near_fm_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}') | $(python3 scripts/sparse_mla_table.py $O/near_base_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
done
tar -C $O -cf $OUT/receipts.tar .
