#!/usr/bin/env bash
# Session 9, call 1 (from .dev/: build carried as .dev/b, FlashMLA exports as .dev/fm and
# .dev/fm_percall): the sparse_mla receipts with FlashMLA's scheduler metadata reused within a
# lens_epoch; the per-call form (metadata every launch, the adapter before this change) as a
# diagnostic; spreads; Nsight Compute on the ssu batch-1 rows (fast vs floor: warp stalls, the
# instruction-fetch hypothesis) and the SASS of ssu.fast. .dev/fm_percall's library: the FlashMLA
# objects of scripts/peers/flashmla_sparse.sh (build-peers/flashmla_sparse/obj/{0..3}.*.o) linked
# with peers/flashmla_sparse/adapter.cu of c457c62, compiled with the script's flags against that
# commit's abi.h (the struct before lens_epoch: a prefix of the new one). Only eight files came back
# from this call's $OUT (the device returns a few files per call); the receipts are call 2's.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/b; O=$OUT; export KGATE_SOURCE_DIR=$ROOT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
mkdir -p build-peers/flashmla_sparse && cp .dev/fm/libkgate_flashmla_sparse.so .dev/fm/build.json build-peers/flashmla_sparse/
export KGATE_FLASHMLA_EXPORT=$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so
( time timeout 120 $B/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED|FlashMla" $O/gpu_tests.log | head
ROWS='mla-*-fp8-h64-*,mla-*-fp8-h128-*'
timeout 60 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate sparse_mla.fast \
  --baseline export:$ROOT/.dev/fm_percall/libkgate_flashmla_sparse_percall.so:sparse_mla.flashmla --policy correct \
  --out $O/diag_percall.json > $O/diag_percall.log 2>&1; echo "percall diag rc=$?"
python3 scripts/sparse_mla_table.py $O/diag_percall.json | tail -1 | cut -c1-300
python3 scripts/activity_table.py $O/diag_percall.json flashmla > $O/diag_percall_activity.txt 2>&1; head -5 $O/diag_percall_activity.txt
OUT=$O/r timeout 240 bash scripts/device/h200_sparse_mla.sh $B > $O/sparse_mla_call.log 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale" $O/sparse_mla_call.log | cut -c1-300 | head -30
FM=export:$KGATE_FLASHMLA_EXPORT:sparse_mla.flashmla
for i in 1 2 3; do
  timeout 40 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate sparse_mla.fast \
    --baseline $FM --policy correct --out $O/spread_fm_$i.json > /dev/null 2>&1
  echo "spread $i: $(python3 scripts/sparse_mla_table.py $O/spread_fm_$i.json | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
done
# ssu batch 1: where fast's ~0.6 us over the floor goes (ncu flushes every cache before a replay).
for row in ssu-nemotron-h-bf16-b1 ssu-granite-like-bf16-b1; do
  for k in ssu_fast_kernel ssu_floor_kernel; do
    timeout 60 ncu --clock-control none --kernel-name "regex:$k" --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats \
      --section Occupancy --section InstructionStats --section SourceCounters --section MemoryWorkloadAnalysis \
      $B/kgate run --quiet --no-peaks --cases cases/ssu.json --rows "$row" --candidate ssu.fast --baseline ssu.floor \
      --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --out /tmp/ncu_$row.json > $O/ncu_${row}_$k.txt 2>&1
    echo "ncu $row $k: rc=$? $(grep -E 'Duration|No Instruction|Warp Cycles Per Issued' $O/ncu_${row}_$k.txt | tr -s ' ' | tr '\n' ';' | cut -c1-300)"
  done
done
cuobjdump --dump-sass $B/kgate 2>&1 | awk '/Function : /{p = /ssu_fast_kernel|ssu_floor_kernel/} p' > $O/sass_ssu.txt
awk '/Function : /{if (n) print n, f; f=$3; n=0} /^ +\/\*[0-9a-f]+\*\//{n++} END{print n, f}' $O/sass_ssu.txt > $O/sass_ssu_sizes.txt; head -30 $O/sass_ssu_sizes.txt
true
