#!/usr/bin/env bash
# ssu arms on the GPU: correctness of every arm on small rows (pad slots, fused views, z), audited.
source "$(dirname "$0")/lib_gpu.sh"
cd "$WORK"
"$KGATE" run --backend cuda --quiet --cases "$SRC/cases/ssu.json" --rows '*-b1,*-b8*,*-b16*,*fused*' \
  --candidate ssu.fast --baseline ssu.baseline,ssu.floor --policy correct --groups 1 --m 1 --out s.json >/dev/null 2>err.txt
check "ssu fast vs baseline and floor: every arm correct" 0 $?
"$KGATE" audit s.json >/dev/null; check "audit" 0 $?
finish
