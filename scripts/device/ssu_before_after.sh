#!/usr/bin/env bash
# The same campaign (ssu.fast vs ssu.floor and ssu.floor_stream, every row, default protocol) by
# two builds in one device session: $2/kgate (the tree before a change) then $1/kgate (after).
# Prints per row fast / floor for both, and their change. Receipts go to $OUT/before, $OUT/after.
set -uo pipefail
NEW=$(cd "${1:?new build folder}" && pwd)
OLD=$(cd "${2:?old build folder}" && pwd)
OUT=${OUT:-out/device}
mkdir -p "$OUT/before" "$OUT/after"
export KGATE_SOURCE_DIR=$PWD
args=(run --quiet --cases cases/ssu.json --candidate ssu.fast --baseline ssu.floor,ssu.floor_stream
      --policy cases/policies/ssu_floor_anchors.json)
"$OLD/kgate" "${args[@]}" --out "$OUT/before/ssu_fast_vs_floor.json"
"$NEW/kgate" "${args[@]}" --out "$OUT/after/ssu_fast_vs_floor.json"
python3 scripts/ssu_before_after.py "$OUT/before/ssu_fast_vs_floor.json" "$OUT/after/ssu_fast_vs_floor.json"
