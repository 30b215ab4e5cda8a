#!/usr/bin/env bash
# Session 20, call 6: where the prefill step goes. Nsight Compute (full set, SASS source page; clocks left
# alone) on one launch each of ours (.dev/m, main's kernels) and FlashMLA's main kernel on mla-87
# (h64, 257 tokens of 10 blocks, 2 per SM, rows in L2: ours 87.3 us, FlashMLA 70.3).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/m; O=/tmp/s20c6; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/.dev/fm/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
prof() {  # NAME ROW BASELINE KERNEL_REGEX
  timeout 150 ncu --clock-control none --kernel-name regex:"$4" --launch-skip 2 --launch-count 1 --set full --import-source no \
    -o $O/$1 $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$2" --candidate sparse_mla.fast \
    --baseline "$3" --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --force --out $O/$1.json > $O/$1.log 2>&1
  echo "$1 rc=$?"
  ncu -i $O/$1.ncu-rep --page details > $O/$1.details.txt 2>&1
  ncu -i $O/$1.ncu-rep --page source --csv --print-source sass > $O/$1.sass.csv 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Instructions  |Warp Cycles Per Issued|L2 Hit Rate|DRAM Throughput|Memory Throughput" $O/$1.details.txt | head -10
}
prof ours87 'mla-87-*' sparse_mla.floor sparse_mla_fast_ws_kernel
prof fm87 'mla-87-*' "$FM" flash_fwd_splitkv_mla_fp8_sparse
rm -f $O/*.ncu-rep $O/*.json.*; tar -C $O -czf $OUT/s20c6.tgz .
