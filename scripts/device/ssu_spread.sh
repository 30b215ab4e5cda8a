#!/usr/bin/env bash
# Run-to-run spread of ssu.fast / ssu.floor on the BF16 rows nearest the 1.05 line: N (default
# 3) independent kgate runs, default protocol. Usage: ssu_spread.sh BIN [N]
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS='ssu-mamba2-2.7b-bf16-b32,ssu-nemotron-h-bf16-b32-z,ssu-granite-like-bf16-b64,ssu-nemotron-h-tp2-bf16-b64'
for i in $(seq 1 "${2:-3}"); do
  "$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast --baseline ssu.floor \
    --policy cases/policies/ssu_floor.json --out "$R/ssu_spread_$i.json" | tail -1
  "$K" report "$R/ssu_spread_$i.json" --format wide --anchor ssu.floor | grep "^| ssu-"
done
