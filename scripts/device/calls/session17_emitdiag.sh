#!/usr/bin/env bash
# Session 17, call 5 (branch issue14-emitdiag, build-dev/d): why the fp32 partials' 16-byte stores
# measured 4-12 us slower than the 8-byte pairs. KGATE_SPARSE_MLA_EMIT = 0 (the pairs as they lie),
# 1 (exchange over quad bit 0, 64 contiguous bytes per row per store), 2 (the same stores without the
# exchange: wrong data, the store pattern alone), on six lockstep split rows and mla-42, order 0 1 2 0 1 2;
# then Nsight Compute (full set, SASS) on mla-07 in modes 0 and 1.
set -uo pipefail
ROOT=$PWD; B=$ROOT/build-dev/d; O=/tmp/s17c5; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
trap 'rm -f $O/*.ncu-rep; tar -C $O -cf $OUT/emitdiag.tar .' EXIT
ROWS='mla-06-*,mla-07-*,mla-22-*,mla-31-*,mla-18-*,mla-30-*,mla-42-*'
for i in 1 2; do for m in 0 1 2; do
  KGATE_SPARSE_MLA_EMIT=$m timeout 60 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate sparse_mla.fast \
    --baseline sparse_mla.floor --policy correct --out $O/m${m}_$i.json > $O/m${m}_$i.log 2>&1
  echo "mode $m run $i rc=$?: $(grep -E 'pass policy' $O/m${m}_$i.log | cut -c1-100)"
done; done
for m in 0 1; do
  KGATE_SPARSE_MLA_EMIT=$m timeout 100 ncu --clock-control none --kernel-name regex:sparse_mla_fast_wg_kernel --launch-count 1 --set full \
    --import-source no -o $O/ncu_m$m $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows 'mla-07-*' \
    --candidate sparse_mla.fast --baseline sparse_mla.floor --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct \
    --force --out $O/ncu_m$m.json > $O/ncu_m$m.log 2>&1
  echo "ncu mode $m rc=$?"
  ncu -i $O/ncu_m$m.ncu-rep --page details > $O/ncu_m$m.details.txt 2>&1
  ncu -i $O/ncu_m$m.ncu-rep --page source --csv --print-source sass > $O/ncu_m$m.sass.csv 2>&1
  grep -E "Duration|L2 Hit|DRAM Throughput|Memory Throughput" $O/ncu_m$m.details.txt | head -5
done
