#!/usr/bin/env bash
# Tuning look at several ssu arms at once: candidate vs each arm in $3 (comma list), short protocol.
# Usage: ssu_variants.sh BIN ROWS ARMS [FLOOR_ARM]
set -uo pipefail
source "$(dirname "$0")/env.sh"
"$K" run --quiet --cases cases/ssu.json --rows "$2" --candidate ssu.fast --baseline "$3" \
  --groups 1 --m 3 --policy correct --out "$R/ssu_variants.json"
"$K" report "$R/ssu_variants.json" --format wide --anchor "${4:-ssu.floor}"
