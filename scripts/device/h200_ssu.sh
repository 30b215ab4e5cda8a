#!/usr/bin/env bash
# Issue 4 receipts on the H200: ssu.fast vs ssu.baseline (correct,strict) and vs ssu.floor
# (floor targets), all rows, default protocol. Receipts go to $OUT/receipts_<script>.tar.
set -uo pipefail
source "$(dirname "$0")/env.sh"
"$K" run --quiet --cases cases/ssu.json --candidate ssu.fast --baseline ssu.baseline --policy correct,strict \
  --out "$R/ssu_fast_vs_baseline.json"
# Receipt 2 carries two anchors: ssu.floor (gated: the issue's targets) and ssu.floor_stream
# (the faster streaming copy, reported, not gated: cases/policies/ssu_floor_anchors.json).
"$K" run --quiet --cases cases/ssu.json --candidate ssu.fast --baseline ssu.floor,ssu.floor_stream \
  --policy cases/policies/ssu_floor_anchors.json --out "$R/ssu_fast_vs_floor.json"
"$K" audit $(ls "$R"/*.json | grep -v "\.samples\.json$")
"$K" gate "$R/ssu_fast_vs_baseline.json" --policy correct,strict --against-tree .
"$K" gate "$R/ssu_fast_vs_floor.json" --policy cases/policies/ssu_floor_anchors.json --against-tree .
"$K" report "$R/ssu_fast_vs_floor.json" --format wide --anchor ssu.floor
python3 scripts/ssu_pairs.py "$R/ssu_fast_vs_baseline.json" "$R/ssu_fast_vs_floor.json"
