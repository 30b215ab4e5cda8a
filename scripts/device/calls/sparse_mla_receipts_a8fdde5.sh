#!/usr/bin/env bash
# The device call that made the committed sparse_mla receipts, as it ran (from .dev/: the build carried
# as .dev/b, the tree is the checkout at a8fdde5); kept as the record. The reusable form: scripts/device/h200_sparse_mla.sh.
# session 6 call 6: sparse_mla receipts of build a8fdde5 (main: sparse_mla.fast's wgmma path), spreads, sanitizers
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/b; O=/tmp/o6; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
( time timeout 90 $B/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
OUT=$O/r timeout 180 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" $O/sparse_mla_call.log | cut -c1-400 | head -30
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
for i in 1 2 3; do
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-34-*,mla-35-*,mla-43-*,mla-44-*,mla-47-*,mla-87-*,mla-91-*' \
    --candidate sparse_mla.fast --baseline $FM --policy correct --out $O/near_fm_$i.json > /dev/null 2>&1
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows 'mla-00-*,mla-15-*,mla-24-*,mla-73-*,mla-61-*,mla-64-*' \
    --candidate sparse_mla.fast --baseline sparse_mla.baseline --policy correct --out $O/near_base_$i.json > /dev/null 2>&1
  echo "spread $i: $(python3 scripts/sparse_mla_table.py $O/near_fm_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}') | $(python3 scripts/sparse_mla_table.py $O/near_base_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
done
( timeout 150 bash -c "OUT=$O; source scripts/device/env.sh $B; sanitize sanitizer_mla cases/sparse_mla_hardening.json '*-offset-concat-pad,mla-hard-fp8-h128-all-invalid,mla-hard-fp8-h64-one-token-offset' sparse_mla.fast sparse_mla.baseline,sparse_mla.floor" ) ; echo "mla sanitize rc=$?"
( timeout 100 bash -c "OUT=$O; source scripts/device/env.sh $B; sanitize sanitizer_ssu cases/ssu.json 'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-fp32-b16-z' ssu.fast ssu.floor,ssu.floor_copy" ); echo "ssu sanitize rc=$?"
tar -C $O -cf $OUT/all.tar .
