#!/usr/bin/env bash
# Session 16, call 4 (branch issue14-route, the build carried as .dev/n, the tree at the commit
# INDEX.md names): the BF16 routing threshold at 64 block steps. GPU tests,
# scripts/device/h200_sparse_mla.sh (the three receipts, audit, gate, tables), three more runs of
# the rows nearest their lines, memcheck on mla-01 (the one row that changed kernel), then Nsight
# Compute (full set, SASS) on mla-42, ours and FlashMLA's main kernel, for the next session.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/r16b; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( timeout 120 $B/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
OUT=$O/r timeout 200 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-300 | head -30
for i in 1 2 3; do
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-10-*,mla-20-*,mla-22-*,mla-23-*,mla-31-*,mla-32-*' \
    --candidate sparse_mla.fast --baseline $FM --policy correct --out $O/near_fm_$i.json > /dev/null 2>&1
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-00-*,mla-01-*,mla-15-*,mla-24-*,mla-64-*,mla-73-*' \
    --candidate sparse_mla.fast --baseline sparse_mla.baseline --policy correct --out $O/near_base_$i.json > /dev/null 2>&1
  echo "spread $i: $(python3 scripts/sparse_mla_table.py $O/near_fm_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}') | $(python3 scripts/sparse_mla_table.py $O/near_base_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
done
( timeout 60 bash -c "OUT=$O; source scripts/device/env.sh $B; sanitize sanitizer_mla01 cases/sparse_mla_94.json 'mla-01-*' sparse_mla.fast sparse_mla.floor" ); echo "mla-01 sanitize rc=$?"
prof() {  # NAME ROW BASELINE KERNEL_REGEX
  timeout 90 ncu --clock-control none --kernel-name regex:"$4" --launch-count 1 --set full --import-source no -o $O/$1 \
    $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$2" --candidate sparse_mla.fast \
    --baseline "$3" --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --force --out $O/$1.json > $O/$1.log 2>&1
  echo "$1 rc=$?"
  ncu -i $O/$1.ncu-rep --page details > $O/$1.details.txt 2>&1
  ncu -i $O/$1.ncu-rep --page source --csv --print-source sass > $O/$1.sass.csv 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Instructions  |Warp Cycles Per Issued" $O/$1.details.txt | head -8
}
prof ours42 'mla-42-*' sparse_mla.floor sparse_mla_fast_ws_kernel
prof fm42 'mla-42-*' "$FM" flash_fwd_splitkv_mla_fp8_sparse
rm -f $O/*.ncu-rep
tar -C $O -cf $OUT/receipts.tar .
