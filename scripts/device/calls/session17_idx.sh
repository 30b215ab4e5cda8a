#!/usr/bin/env bash
# Session 17, call 8: the ws index loads issued before lens (build-dev/e, c26dd5d) against behind lens (build-dev/x, issue14-idxdiag), 28 FlashMLA rows, e x e x.
set -uo pipefail
ROOT=$PWD; O=/tmp/s17c8; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/idx.tar .' EXIT
for i in 1 2; do for v in e x; do
  timeout 100 $ROOT/build-dev/$v/kgate run --quiet --cases cases/sparse_mla_94.json \
    --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' --candidate sparse_mla.fast --baseline "$FM" --policy correct \
    --out $O/ab_${v}_$i.json > $O/ab_${v}_$i.log 2>&1
  echo "$v $i rc=$?: $(grep -E 'pass policy' $O/ab_${v}_$i.log | cut -c1-120)"
  python3 scripts/sparse_mla_table.py $O/ab_${v}_$i.json > $O/ab_${v}_$i.txt 2>&1; tail -1 $O/ab_${v}_$i.txt
done; done
