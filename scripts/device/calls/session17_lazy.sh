#!/usr/bin/env bash
# Session 17, call 10: the FP8 producer encodes the next block's indices at first use (build-dev/l, branch issue14-lazyidx) against 6a1e8c8 (build-dev/r), 28 FlashMLA rows, l r l r.
set -uo pipefail
ROOT=$PWD; O=/tmp/s17c12; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/lazy.tar .' EXIT
for i in 1 2; do for v in l r; do
  timeout 100 $ROOT/build-dev/$v/kgate run --quiet --cases cases/sparse_mla_94.json \
    --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' --candidate sparse_mla.fast --baseline "$FM" --policy correct \
    --out $O/ab_${v}_$i.json > $O/ab_${v}_$i.log 2>&1
  echo "$v $i rc=$?: $(grep -E 'pass policy' $O/ab_${v}_$i.log | cut -c1-120)"
  python3 scripts/sparse_mla_table.py $O/ab_${v}_$i.json > $O/ab_${v}_$i.txt 2>&1; tail -1 $O/ab_${v}_$i.txt
done; done
