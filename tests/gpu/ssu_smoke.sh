#!/usr/bin/env bash
# ssu arms on the GPU: correctness of every arm on small rows (pad slots, fused views, z) and one
# row on the 8-chunk path (tp2 b256: 16384 tiles), audited.
source "$(dirname "$0")/lib_gpu.sh"
cd "$WORK"
"$KGATE" run --backend cuda --quiet --cases "$SRC/cases/ssu.json" --rows '*-b1,*-b8*,*-b16*,*fused*,ssu-nemotron-h-tp2-bf16-b256' \
  --candidate ssu.fast --baseline ssu.baseline,ssu.floor --policy correct --groups 1 --m 1 --out s.json >/dev/null 2>err.txt
check "ssu fast vs baseline and floor: every arm correct" 0 $?
"$KGATE" audit s.json >/dev/null; check "audit" 0 $?
finish
