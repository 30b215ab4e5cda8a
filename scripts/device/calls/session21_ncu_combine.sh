#!/usr/bin/env bash
# Session 21, call 9: why our combine takes 4.4 us on mla-18 where FlashMLA's takes ~2. Nsight Compute (full set,
# clocks left alone) on one launch of sparse_mla_fast_combine_kernel (main's build, .dev/x) and of FlashMLA's
# combine kernel, mla-18 and mla-34.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/x; O=/tmp/s21c9; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/.dev/fm/libkgate_flashmla_sparse.so:sparse_mla.flashmla
source scripts/device/sparse_mla_checks.sh
mla_ncu ours18 'mla-18-*' sparse_mla.floor sparse_mla_fast_combine_kernel
mla_ncu fm18 'mla-18-*' "$FM" flash_fwd_mla_combine
mla_ncu ours34 'mla-34-*' sparse_mla.floor sparse_mla_fast_combine_kernel
mla_ncu fm34 'mla-34-*' "$FM" flash_fwd_mla_combine
for n in ours18 fm18 ours34 fm34; do echo "== $n"; grep -E "Grid Size|Block Size|Registers Per|Achieved Occupancy|Duration|Elapsed Cycles|L2 Hit|lts__t_bytes|Memory Throughput|DRAM Throughput" $O/$n.details.txt | head -12; done
rm -f $O/*.ncu-rep $O/*.json.*; tar -C $O -czf $OUT/s21c9.tgz .
