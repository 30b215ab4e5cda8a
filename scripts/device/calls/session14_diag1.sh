#!/usr/bin/env bash
# Session 14, call 1 (branch issue14-membar): (a) A/B of main 584027e (.dev/b) against the branch
# (.dev/n: the FP8 producer issues the next block's row loads after its fence.proxy.async + arrive,
# warpgroup 0 the next item's Q after its P fence) on the warp-specialized FlashMLA rows, against
# FlashMLA, twice each in the order b n b n; (b) whether racecheck orders accesses across named
# barriers as fast_ws uses them (scripts/device/diag/named_barrier_racecheck.cu, modes 0-3, .dev/r);
# (c) Nsight Compute, full set with per-SASS stall samples, of one launch of the branch's kernel and
# of FlashMLA's main kernel on mla-91 (h64 prefill).
# (The b n b n loop ran inline; it is scripts/device/ab_runs.sh now: the same runs, except that call 1
# printed each log's last 300 bytes where ab_runs prints its verdict line.)
set -uo pipefail
ROOT=$PWD; O=/tmp/s14d1; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
ROWS='mla-10-*,mla-11-*,mla-19-*,mla-20-*,mla-23-*,mla-32-*,mla-34-*,mla-35-*,mla-42-*,mla-43-*,mla-44-*,mla-46-*,mla-47-*,mla-87-*,mla-89-*,mla-91-*,mla-93-*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
source scripts/device/ab_runs.sh
ab_runs ab "$ROWS"
paste <(awk '{print substr($1,1,6), $2}' $O/ab_b_1.txt) <(awk '{print $2}' $O/ab_n_1.txt) <(awk '{print $2}' $O/ab_b_2.txt) <(awk '{print $2}' $O/ab_n_2.txt) <(awk '{print $3}' $O/ab_n_2.txt)
tail -1 $O/ab_b_2.txt; tail -1 $O/ab_n_2.txt
for m in 0 1 2 3; do
  echo "== mode $m"; $ROOT/.dev/r/named_barrier_racecheck $m
  timeout 60 compute-sanitizer --tool racecheck --racecheck-report all $ROOT/.dev/r/named_barrier_racecheck $m 2>&1 | tail -25
done > $O/racecheck_probe.txt 2>&1
grep -E "^== mode|RACECHECK SUMMARY|mode [0-3]:" $O/racecheck_probe.txt
prof() {  # NAME ROW BASELINE KERNEL_REGEX
  timeout 120 ncu --clock-control none --kernel-name regex:"$4" --launch-count 1 --set full --import-source no -o $O/$1 \
    $ROOT/.dev/n/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$2" --candidate sparse_mla.fast \
    --baseline "$3" --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --force --out $O/$1.json > $O/$1.log 2>&1
  echo "$1 rc=$?"
  ncu -i $O/$1.ncu-rep --page details > $O/$1.details.txt 2>&1
  ncu -i $O/$1.ncu-rep --page source --csv --print-source sass > $O/$1.sass.csv 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Instructions  |Warp Cycles Per Issued" $O/$1.details.txt | head -8
}
prof ours91 'mla-91-*' sparse_mla.floor sparse_mla_fast_ws_kernel
prof fm91 'mla-91-*' "$FM" flash_fwd_splitkv_mla_fp8_sparse
tar -C $O -cf $OUT/all.tar .
