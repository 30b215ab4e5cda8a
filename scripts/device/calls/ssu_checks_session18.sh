#!/usr/bin/env bash
# Session 18, after the receipts of a366f04: the GPU tests again (the side-warp test without softplus
# off), memcheck on one row per row-owner kernel path (their source moved into the shared
# update_chunks / store_out helpers: SASS differs by register allocation) and racecheck one row per
# run on three of them. Carried: .dev/f/{kgate,kgate_gpu_tests}. One tar back.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/f; O=/tmp/ck; rm -rf $O; mkdir -p $O
export KGATE_SOURCE_DIR=$ROOT
timeout 150 $B/kgate_gpu_tests > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' $O/gpu_tests.log | tr '\n' ' ')"
OWNER='ssu-nemotron-h-fp32-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-fp32-b16-z,ssu-nemotron-h-bf16-b32-z,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-tp2-bf16-b64-pad,ssu-granite-like-fp32-b8'
bash scripts/device/ssu_memcheck.sh $B $O/memcheck_row_owner.log "$OWNER"  # the call ran this inline
timeout 160 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/ssu.json ssu.fast ssu.floor 50 \
  ssu-nemotron-h-fp32-b1 ssu-nemotron-h-bf16-b32-z ssu-mamba2-2.7b-bf16-b16-fused-unaligned
tar -C $O -cf /tmp/ck.tar . && mv /tmp/ck.tar $OUT/ck.tar
