#!/usr/bin/env bash
# Tuning A/B of ssu.fast variants picked by an environment knob, each against ssu.floor, runs
# interleaved (v1 v2 ... v1 v2 ...), three rounds, default protocol; then the table
# (scripts/ssu_variant_table.py). "base" runs with the knob unset.
# Usage: ssu_variant_ab.sh BIN OUTDIR KNOB "VARIANTS" ROWS
set -uo pipefail
B=$1 O=$2 knob=$3 variants=$4 rows=$5
mkdir -p "$O/ab"
export KGATE_SOURCE_DIR=$PWD
for r in 1 2 3; do for v in $variants; do
  if [ "$v" = base ]; then unset "$knob"; else export "$knob=$v"; fi
  timeout 90 "$B/kgate" run --quiet --cases cases/ssu.json --rows "$rows" --candidate ssu.fast --baseline ssu.floor \
    --policy correct --out "$O/ab/${v}_$r.json" > "$O/ab/${v}_$r.log" 2>&1
  echo "$v $r rc=$? $(grep -E 'pass policy' "$O/ab/${v}_$r.log" | cut -c1-120)"
done; done
unset "$knob"
python3 scripts/ssu_variant_table.py "$O/ab" | tee "$O/table.txt"
