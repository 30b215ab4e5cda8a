#!/usr/bin/env bash
# Session 20, call 6: where the prefill step goes. Nsight Compute (full set, SASS source page; clocks left
# alone) on one launch each of ours (.dev/m, main's kernels) and FlashMLA's main kernel on mla-87
# (h64, 257 tokens of 10 blocks, 2 per SM, rows in L2: ours 87.3 us, FlashMLA 70.3).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/m; O=/tmp/s20c6; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/.dev/fm/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
source scripts/device/sparse_mla_checks.sh  # (the call ran mla_ncu inline, with the same commands)
mla_ncu ours87 'mla-87-*' sparse_mla.floor sparse_mla_fast_ws_kernel
mla_ncu fm87 'mla-87-*' "$FM" flash_fwd_splitkv_mla_fp8_sparse
rm -f $O/*.ncu-rep $O/*.json.*; tar -C $O -czf $OUT/s20c6.tgz .
