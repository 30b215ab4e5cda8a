#!/usr/bin/env bash
# Session 21, call 2: where the producer's time goes after the RoPE change. Nsight Compute (full set, SASS source
# page, clocks left alone) on one launch of the ws kernel of branch issue14-piece's build (.dev/pc) on mla-87
# (h64 prefill, 20 block steps a CTA) and mla-43 (h128, one wave of 10-block items).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/pc; O=/tmp/s21c2; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
source scripts/device/sparse_mla_checks.sh
mla_ncu pc87 'mla-87-*' sparse_mla.floor sparse_mla_fast_ws_kernel
mla_ncu pc43 'mla-43-*' sparse_mla.floor sparse_mla_fast_ws_kernel
python3 scripts/ncu_stall_summary.py $O/pc87.sass.csv $O/pc43.sass.csv --top 20
python3 scripts/ncu_stall_summary.py $O/pc87.sass.csv --ops 20
rm -f $O/*.ncu-rep $O/*.json.*; tar -C $O -czf $OUT/s21c2.tgz .
