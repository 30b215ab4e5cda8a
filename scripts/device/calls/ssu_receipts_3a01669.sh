#!/usr/bin/env bash
# The device call that made the committed ssu receipts, as it ran (from .dev/: builds f and l and
# their export libraries carried there); kept as the record. The reusable form: scripts/device/h200_ssu_issue13.sh.
# call 3: issue 13 final receipts for two builds: f (main + review fixes, 3a01669) and l (f + lean BF16 NL = 2, 7a593fe)
set -uo pipefail
ROOT=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $OUT/gpu.txt 2>&1
mkdir -p /tmp/lean && tar -C $ROOT --exclude=./.dev --exclude=./build --exclude='./build-*' -cf - . | tar -C /tmp/lean -xf -
cp .dev/l/src/* /tmp/lean/kernels/ssu/
mkdir -p /tmp/lean/build-peers/flashinfer_ssu && cp build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so /tmp/lean/build-peers/flashinfer_ssu/
tree_of() { [ "$1" = l ] && echo /tmp/lean || echo $ROOT; }
for v in f l; do
  T=$(tree_of $v); B=$ROOT/.dev/$v
  ( cd $T && export KGATE_SOURCE_DIR=$T
    $B/kgate_gpu_tests > $OUT/gpu_tests_$v.log 2>&1; echo "$v gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/gpu_tests_$v.log | tr '\n' ' ')"
    mkdir -p /tmp/b1_$v
    $B/kgate run --quiet --cases cases/ssu.json --rows 'ssu-*-b1,ssu-*-b2,ssu-*-b4,ssu-*-b8' --candidate ssu.fast --baseline ssu.floor \
      --policy correct --out /tmp/b1_$v/b1.json > $OUT/b1_$v.log 2>&1; echo "$v b1 rc=$?"
    $B/kgate report /tmp/b1_$v/b1.json --format wide --anchor ssu.floor >> $OUT/b1_$v.log 2>&1
    grep "^| ssu-" $OUT/b1_$v.log | cut -d'|' -f2-5
  )
done
for v in f l; do
  T=$(tree_of $v); B=$ROOT/.dev/$v
  ( cd $T && EX_LIB=$B/libkgate_ssu_fast.so OUT=$OUT/$v bash scripts/device/h200_ssu_issue13.sh $B > $OUT/ssu_call_$v.log 2>&1; echo "$v receipts rc=$?"
    grep -E "campaign wall|rows, .* pass policy|geomean" $OUT/ssu_call_$v.log | head -8 )
done
for v in f l; do
  T=$(tree_of $v); B=$ROOT/.dev/$v
  mkdir -p /tmp/rc_$v && tar -xf $OUT/$v/receipts_h200_ssu_issue13.tar -C /tmp/rc_$v 2>/dev/null
  [ -f /tmp/rc_$v/ssu_fast_vs_flashinfer_stock.json ] || { echo "$v: no campaign receipt"; continue; }
  ROWS=$(python3 scripts/ssu_vs_flashinfer.py --near /tmp/rc_$v/ssu_fast_vs_flashinfer_stock.json)
  echo "$v near rows: $ROWS"
  ( cd $T && ROWS=$ROWS BASELINE="export:$T/build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so:ssu.flashinfer_stock,ssu.floor_copy,ssu.floor" \
      POLICY=cases/policies/ssu_vs_flashinfer.json TAG=near OUT=$OUT/sp_$v bash scripts/device/ssu_spread.sh $B 3 > $OUT/near_spread_$v.log 2>&1
    echo "$v spread rc=$?"
    OUT=$OUT/san_$v timeout 150 bash scripts/device/ssu_sanitize.sh $B > $OUT/sanitize_$v.log 2>&1; echo "$v sanitize rc=$?"; cat $OUT/sanitize_$v.log )
done
tar -C $OUT -cf /tmp/all.tar . && rm -rf $OUT/* && mv /tmp/all.tar $OUT/all.tar
