#!/usr/bin/env bash
# Session 14, call 3 (branch issue14-membar): call 2's kernels with the warp-specialized CTA's first
# item static (blockIdx.x; the queue hands out the rest), so no atomic before the first gather, and
# from two items per CTA the queue in tokens by active length, longest first (sparse_mla_ws_order_kernel).
# A/B of main 584027e (.dev/b) against the branch (.dev/n) on the 28 FlashMLA rows, order b n b n
# (scripts/device/ab_runs.sh). GPU tests, racecheck and the racecheck probe: sparse_mla_receipts_session14.sh
# and sparse_mla_sanitize_session14.sh, in the same session.
set -uo pipefail
ROOT=$PWD; O=/tmp/s14c3; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
source scripts/device/ab_runs.sh
ab_runs fm 'mla-*-fp8-h64-*,mla-*-fp8-h128-*'
paste <(awk '{print substr($1,1,6), $2}' $O/fm_b_1.txt) <(awk '{print $2}' $O/fm_n_1.txt) <(awk '{print $2}' $O/fm_b_2.txt) <(awk '{print $2, $3, $4}' $O/fm_n_2.txt) | head -30
tail -1 $O/fm_b_2.txt; tail -1 $O/fm_n_2.txt
tar -C $O -cf $OUT/all.tar .
