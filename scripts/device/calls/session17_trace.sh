#!/usr/bin/env bash
# Session 17, call 2 (branch issue14-trace, a KGATE_WS_TRACE build carried as build-dev/t): where a
# warp-specialized item's time goes. clock64 stamps per CTA (producer: indices in, stage free, row 0
# stored, block arrived; warpgroup 0: Q in, S done, P handed over, P V done, emit; warpgroup 1's
# emit) of the last launch of a row, on mla-42 (one item of 2 blocks per CTA), mla-44, mla-20, mla-11,
# mla-35 and mla-18 forced onto the warp-specialized kernel; then Nsight Compute (full set, SASS) on
# mla-42, ours and FlashMLA's main kernel.
set -uo pipefail
ROOT=$PWD; B=$ROOT/build-dev/t; O=/tmp/s17c2; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
trap 'rm -f $O/*.ncu-rep; tar -C $O -cf $OUT/trace.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
for r in mla-42 mla-44 mla-20 mla-11 mla-35 mla-18; do
  env $([ $r = mla-18 ] && echo KGATE_SPARSE_MLA_FAST_PATH=ws) KGATE_WS_TRACE_FILE=$O/trace_$r.txt timeout 40 $B/kgate run --quiet \
    --cases cases/sparse_mla_94.json --rows "$r-*" --candidate sparse_mla.fast --baseline sparse_mla.floor --policy correct \
    --out $O/t_$r.json > $O/t_$r.log 2>&1
  echo "$r rc=$?: $(grep -E 'pass policy' $O/t_$r.log | cut -c1-150)"; head -3 $O/trace_$r.txt | cut -c1-250
done
prof() {  # NAME ROW BASELINE KERNEL_REGEX
  timeout 100 ncu --clock-control none --kernel-name regex:"$4" --launch-count 1 --set full --import-source no -o $O/$1 \
    $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$2" --candidate sparse_mla.fast \
    --baseline "$3" --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --force --out $O/$1.json > $O/$1.log 2>&1
  echo "$1 rc=$?"
  ncu -i $O/$1.ncu-rep --page details > $O/$1.details.txt 2>&1
  ncu -i $O/$1.ncu-rep --page source --csv --print-source sass > $O/$1.sass.csv 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Instructions  |Warp Cycles Per Issued" $O/$1.details.txt | head -8
}
prof ours42 'mla-42-*' sparse_mla.floor sparse_mla_fast_ws_kernel
prof fm42 'mla-42-*' "$FM" flash_fwd_splitkv_mla_fp8_sparse
