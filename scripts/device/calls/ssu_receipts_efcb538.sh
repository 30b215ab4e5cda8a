#!/usr/bin/env bash
# Session 10, the call that made the ssu receipts of efcb538 (small_wide: BF16 rows of 193-384
# tiles run the NL = 2 kernel with side inputs first). Carried: .dev/f (kgate, kgate_gpu_tests,
# libkgate_ssu_fast.so from `kgate export`) and build-peers/flashinfer_ssu (the FlashInfer
# export, scripts/peers/flashinfer_ssu.sh). GPU tests, the three receipts
# (scripts/device/h200_ssu_issue13.sh), three more runs of the rows nearest each line,
# memcheck and racecheck (one row per run) on the two small_wide rows, the only new kernel instance.
# Everything leaves as one tar.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/f; O=/tmp/rc; rm -rf $O; mkdir -p $O
source scripts/device/ssu_receipts_call.sh 120 200  # the call ran these lines inline (session 18 moved them into the sourced script; the GPU-test summary now also lists skips)
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kgate run --quiet --no-peaks --cases cases/ssu.json \
  --rows 'ssu-nemotron-h-bf16-b2,ssu-nemotron-h-tp2-bf16-b4' --candidate ssu.fast --baseline ssu.floor --groups 1 --m 1 \
  --warmup-calls 1 --warmup-us 0 --policy correct --out /tmp/san_memcheck.json > $O/memcheck_small_wide.log 2>&1
echo "memcheck small_wide rows: exit $? ; $(grep -E 'ERROR SUMMARY|falling back' $O/memcheck_small_wide.log | tr '\n' ' ')"
timeout 100 bash scripts/device/racecheck_rows.sh $B $O/racecheck cases/ssu.json ssu.fast ssu.floor 45 \
  ssu-nemotron-h-bf16-b2 ssu-nemotron-h-tp2-bf16-b4
tar -C $O -cf /tmp/all.tar . && mv /tmp/all.tar $OUT/all.tar
