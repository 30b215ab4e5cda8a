#!/usr/bin/env bash
# Session 9, call 4: ssu.fast's small range at NL = 1 with 8-warp CTAs (branch issue13-nl1, build
# carried as .dev/t) against main's NL = 2 (.dev/b), each vs ssu.floor on the batch <= 8 rows,
# alternating builds (b t b t), default protocol. One tar back.
set -uo pipefail
O=/tmp/c4; mkdir -p $O; export KGATE_SOURCE_DIR=$PWD
for i in 1 2; do
  for v in b t; do
    timeout 120 .dev/$v/kgate run --quiet --cases cases/ssu.json --rows 'ssu-*-b1,ssu-*-b2,ssu-*-b4,ssu-*-b8' \
      --candidate ssu.fast --baseline ssu.floor --policy correct --out $O/${v}_$i.json > $O/${v}_$i.log 2>&1
    echo "$v run $i rc=$? $(grep -E 'pass policy' $O/${v}_$i.log | cut -c1-200)"
    .dev/$v/kgate report $O/${v}_$i.json --format wide --anchor ssu.floor > $O/${v}_$i.wide.txt 2>&1
  done
done
rm -f $O/*.samples.json; tar -C $O -cf $OUT/c4.tar .
