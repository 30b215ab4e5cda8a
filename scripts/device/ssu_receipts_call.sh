#!/usr/bin/env bash
# The common part of an ssu receipts call: the GPU tests, the three receipts
# (scripts/device/h200_ssu_issue13.sh, unpacked into $O/rc) and three more runs of the rows nearest
# each line (scripts/ssu_vs_flashinfer.py --near, scripts/device/ssu_spread.sh). Expects B (the
# build: kgate, kgate_gpu_tests, libkgate_ssu_fast.so), O (the call's folder) and ROOT; the
# FlashInfer export at build-peers/flashinfer_ssu/. Usage: source ssu_receipts_call.sh [TEST_S RECEIPTS_S]
export KGATE_SOURCE_DIR=$ROOT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
timeout "${1:-150}" $B/kgate_gpu_tests > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $O/gpu_tests.log | tr '\n' ' ')"
EX_LIB=$B/libkgate_ssu_fast.so OUT=$O timeout "${2:-220}" bash scripts/device/h200_ssu_issue13.sh $B > $O/ssu_call.log 2>&1
echo "receipts rc=$?"; grep -E "campaign wall|rows, .* pass policy|geomean|audit|stale|FAIL" $O/ssu_call.log | head -24
mkdir -p $O/rc && tar -xf $O/receipts_h200_ssu_issue13.tar -C $O/rc
ROWS=$(python3 scripts/ssu_vs_flashinfer.py --near $O/rc/ssu_fast_vs_flashinfer_stock.json)
echo "near rows: $ROWS"
ROWS=$ROWS BASELINE="export:$ROOT/build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so:ssu.flashinfer_stock,ssu.floor_copy,ssu.floor" \
  POLICY=cases/policies/ssu_vs_flashinfer.json TAG=near OUT=$O/sp timeout 150 bash scripts/device/ssu_spread.sh $B 3 > $O/near_spread.log 2>&1
echo "spread rc=$?"; cut -c1-220 $O/near_spread.log | head -48
