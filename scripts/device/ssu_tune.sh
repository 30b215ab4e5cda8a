#!/usr/bin/env bash
# Tuning look: ssu.fast vs baseline and floor on a row subset, short protocol. Usage: ssu_tune.sh BIN ROWS
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
OUT=${OUT:-out/device}
mkdir -p "$OUT"
export KGATE_SOURCE_DIR=$PWD
"$B/kgate" run --quiet --cases cases/ssu.json --rows "$2" --candidate ssu.fast --baseline ssu.baseline,ssu.floor \
  --groups 1 --m 3 --policy correct --out "$OUT/ssu_tune.json" && python3 scripts/ssu_table.py "$OUT/ssu_tune.json"
