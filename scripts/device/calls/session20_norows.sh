#!/usr/bin/env bash
# Session 20, call 10 (diagnostic, branch issue14-diag-norows): is the step the producer's or the consumers'?
# ncu's duration of the first launch of the ws kernel on mla-87, -43, -20 and -42: main (8c5c9cd, .dev/r)
# against a build whose FP8 producer loads and dequantizes nothing (.dev/dg; wrong output, so only ncu times it).
set -uo pipefail
ROOT=$PWD; O=/tmp/s20c10; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
for b in r dg; do
  for row in mla-87 mla-43 mla-20 mla-42; do
    timeout 60 ncu --clock-control none --kernel-name regex:sparse_mla_fast_ws_kernel --launch-count 1 \
      --metrics gpu__time_duration.sum $ROOT/.dev/$b/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json \
      --rows "$row-*" --candidate sparse_mla.fast --baseline sparse_mla.floor --groups 1 --m 1 --warmup-calls 1 \
      --warmup-us 0 --policy correct --force --out $O/${b}_$row.json > $O/${b}_$row.txt 2>&1
    echo "$b $row: $(grep -E 'gpu__time_duration.sum' $O/${b}_$row.txt | awk '{print $NF, $(NF-1)}')"
  done
done
tar -C $O -czf $OUT/s20c10.tgz .
