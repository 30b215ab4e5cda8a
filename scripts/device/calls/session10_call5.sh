#!/usr/bin/env bash
# Session 10, call 5 (branch issue13-b1diag, .dev/d): every kernel-side change to the batch-1
# path measured the same, but making side inputs constant saved time roughly per tensor removed
# (call 1: 4 weight tensors 0.33 us, x/B/C 0.3 us). Hypothesis: per-allocation cost (address
# translation of each separately allocated side tensor), not loads. Test: the shipped kernels with
# every side input copied into one arena (KGATE_SSU_ARENA=1) against the normal layout,
# alternating, with the pointers printed. Two runs each.
set -uo pipefail
rm -rf /tmp/c5; O=/tmp/c5; mkdir -p $O; export KGATE_SOURCE_DIR=$PWD
ROWS='ssu-*-bf16-b1,ssu-*-bf16-b2,ssu-*-bf16-b4,ssu-*-bf16-b8'
for i in 1 2; do
  for v in normal arena; do
    a=0; [ $v = arena ] && a=1
    KGATE_SSU_ARENA=$a KGATE_SSU_PRINT_PTRS=1 timeout 200 .dev/d/kgate run --quiet --cases cases/ssu.json --rows "$ROWS" \
      --candidate ssu.fast --baseline ssu.floor,ssu.d_cw,ssu.d_cbcx --policy correct --out $O/${v}_$i.json > $O/${v}_$i.log 2>&1
    echo "$v run $i rc=$?"; grep -m3 "ssu ptrs" $O/${v}_$i.log | cut -c1-250
    .dev/d/kgate report $O/${v}_$i.json --format wide --anchor ssu.floor > $O/${v}_$i.wide.txt 2>&1
    grep -E "^\| ssu|geomean" $O/${v}_$i.wide.txt | cut -d'|' -f1-6,7-11
  done
done
rm -f $O/*.samples.json; tar -C $O -cf $OUT/c5.tar .
