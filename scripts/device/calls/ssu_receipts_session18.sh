#!/usr/bin/env bash
# Session 18, the call that made the ssu receipts of the side-warp kernel (BF16 state up to 768
# tiles). Carried: .dev/f/{kgate,kgate_gpu_tests,libkgate_ssu_fast.so,libkgate_ssu_fast.so.json}
# (the build of the commit named in the receipts, and `kgate export` of it) and
# build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so (scripts/peers/flashinfer_ssu.sh). GPU tests,
# the three receipts (scripts/device/h200_ssu_issue13.sh), three more runs of the rows nearest each
# line, memcheck on three side-warp rows and racecheck one row per run on three (both geometries and
# the largest grid). Everything leaves as one tar.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/f; O=/tmp/rc; rm -rf $O; mkdir -p $O
export KGATE_SOURCE_DIR=$ROOT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
timeout 150 $B/kgate_gpu_tests > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $O/gpu_tests.log | tr '\n' ' ')"
EX_LIB=$B/libkgate_ssu_fast.so OUT=$O timeout 220 bash scripts/device/h200_ssu_issue13.sh $B > $O/ssu_call.log 2>&1
echo "receipts rc=$?"; grep -E "campaign wall|rows, .* pass policy|geomean|audit|stale|FAIL" $O/ssu_call.log | head -24
mkdir -p $O/rc && tar -xf $O/receipts_h200_ssu_issue13.tar -C $O/rc
ROWS=$(python3 scripts/ssu_vs_flashinfer.py --near $O/rc/ssu_fast_vs_flashinfer_stock.json)
echo "near rows: $ROWS"
ROWS=$ROWS BASELINE="export:$ROOT/build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so:ssu.flashinfer_stock,ssu.floor_copy,ssu.floor" \
  POLICY=cases/policies/ssu_vs_flashinfer.json TAG=near OUT=$O/sp timeout 150 bash scripts/device/ssu_spread.sh $B 3 > $O/near_spread.log 2>&1
echo "spread rc=$?"; cut -c1-220 $O/near_spread.log | head -48
SIDE='ssu-granite-like-bf16-b1,ssu-nemotron-h-bf16-b1,ssu-granite-like-bf16-b16'
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kgate run --quiet --no-peaks --cases cases/ssu.json \
  --rows "$SIDE" --candidate ssu.fast --baseline ssu.floor --groups 1 --m 1 \
  --warmup-calls 1 --warmup-us 0 --policy correct --out /tmp/san_memcheck.json > $O/memcheck_side_warp.log 2>&1
echo "memcheck side-warp rows: exit $? ; $(grep -E 'ERROR SUMMARY|falling back' $O/memcheck_side_warp.log | tr '\n' ' ')"
timeout 150 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/ssu.json ssu.fast ssu.floor 50 \
  ssu-granite-like-bf16-b1 ssu-nemotron-h-bf16-b1 ssu-granite-like-bf16-b16
tar -C $O -cf /tmp/all.tar . && mv /tmp/all.tar $OUT/all.tar
