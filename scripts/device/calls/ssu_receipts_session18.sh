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
source scripts/device/ssu_receipts_call.sh
SIDE='ssu-granite-like-bf16-b1,ssu-nemotron-h-bf16-b1,ssu-granite-like-bf16-b16'
bash scripts/device/ssu_memcheck.sh $B $O/memcheck_side_warp.log "$SIDE"  # the call ran this inline (timeout 120)
timeout 150 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/ssu.json ssu.fast ssu.floor 50 \
  ssu-granite-like-bf16-b1 ssu-nemotron-h-bf16-b1 ssu-granite-like-bf16-b16
tar -C $O -cf /tmp/all.tar . && mv /tmp/all.tar $OUT/all.tar
