#!/usr/bin/env bash
# Run-to-run spread of ssu.fast against one baseline on the rows nearest its line: N (default
# 3) independent kgate runs, default protocol. Usage: ssu_spread.sh BIN [N]. Defaults: ssu.floor
# on the BF16 rows nearest the 1.05 line; override with ROWS, BASELINE, POLICY, TAG.
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS=${ROWS:-'ssu-mamba2-2.7b-bf16-b32,ssu-nemotron-h-bf16-b32-z,ssu-granite-like-bf16-b64,ssu-nemotron-h-tp2-bf16-b64'}
BASELINE=${BASELINE:-ssu.floor}
POLICY=${POLICY:-cases/policies/ssu_floor.json}
TAG=${TAG:-ssu_spread}
for i in $(seq 1 "${2:-3}"); do
  "$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast --baseline "$BASELINE" \
    --policy "$POLICY" --out "$R/${TAG}_$i.json" | tail -1
  "$K" report "$R/${TAG}_$i.json" --format wide --anchor "${BASELINE%%,*}" | grep "^| ssu-"
  "$K" gate "$R/${TAG}_$i.json" --policy "$POLICY" | grep -A1 "^FAIL" || true
done
