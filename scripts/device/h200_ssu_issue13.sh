#!/usr/bin/env bash
# The ssu receipts of the ssu-vs-FlashInfer issue on the H200, default protocol, all 42 rows:
# 1. the 4-arm campaign: ssu.fast vs FlashInfer's stock kernel (strict), ssu.floor_copy and
#    ssu.floor (limits by target_band): cases/policies/ssu_vs_flashinfer.json; its wall time;
# 2. ssu.fast vs ssu.baseline (correct,strict);
# 3. ssu.fast bundled vs its export (correct,parity,fallback,limit(0.045)).
# Then audit, gate --against-tree, the summary table. Receipts: $OUT/receipts_<script>.tar.
# Usage: h200_ssu_issue13.sh BIN [STEPS] (STEPS: a subset of "1 2 3", default all; EX_LIB: the
# export library of step 3, default build-peers/kgate_ssu_fast/libkgate_ssu_fast.so)
set -uo pipefail
source "$(dirname "$0")/env.sh"
STEPS=${2:-1 2 3}
FI=export:$PWD/build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so:ssu.flashinfer_stock
EX=export:${EX_LIB:-$PWD/build-peers/kgate_ssu_fast/libkgate_ssu_fast.so}:ssu.fast
P13=cases/policies/ssu_vs_flashinfer.json
for s in $STEPS; do
  case $s in
    1) /usr/bin/time -f "campaign wall %e s" "$K" run --quiet --cases cases/ssu.json --candidate ssu.fast \
         --baseline "$FI,ssu.floor_copy,ssu.floor" --policy $P13 --out "$R/ssu_fast_vs_flashinfer_stock.json" ;;
    2) "$K" run --quiet --cases cases/ssu.json --candidate ssu.fast --baseline ssu.baseline --policy correct,strict \
         --out "$R/ssu_fast_vs_baseline.json" ;;
    3) "$K" run --quiet --cases cases/ssu.json --candidate ssu.fast --baseline "$EX" \
         --policy 'correct,parity,fallback,limit(0.045)' --out "$R/ssu_fast_source_vs_export.json" ;;
  esac
done
"$K" audit $(ls "$R"/*.json | grep -v "\.samples\.json$")
[ -f "$R/ssu_fast_vs_flashinfer_stock.json" ] && {
  "$K" gate "$R/ssu_fast_vs_flashinfer_stock.json" --policy $P13 --against-tree .
  python3 scripts/ssu_vs_flashinfer.py "$R/ssu_fast_vs_flashinfer_stock.json"
}
[ -f "$R/ssu_fast_vs_baseline.json" ] && "$K" gate "$R/ssu_fast_vs_baseline.json" --policy correct,strict --against-tree .
[ -f "$R/ssu_fast_source_vs_export.json" ] && "$K" gate "$R/ssu_fast_source_vs_export.json" \
  --policy 'correct,parity,fallback,limit(0.045)' --against-tree .
true
