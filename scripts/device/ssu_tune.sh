#!/usr/bin/env bash
# Tuning run (branch issue13): ssu.fast against every tuning arm on ROWS, one kgate run; the
# wide report lists each arm's median. Usage: ssu_tune.sh BIN. Env: ROWS, ARMS, TAG.
set -uo pipefail
source "$(dirname "$0")/env.sh"
FI=${FI:-export:$PWD/build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so:ssu.flashinfer_stock}
ARMS=${ARMS:-$FI,ssu.floor,ssu.floor_copy,ssu.t_floor1p,ssu.t_plainst,ssu.t_pass1,ssu.t_pass1cs,ssu.t_pass2,ssu.t_pass4,ssu.t_pass2s128}
TAG=${TAG:-tune}
time "$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast --baseline "$ARMS" \
  --policy correct --out "$R/$TAG.json" | tail -3
"$K" report "$R/$TAG.json" --format wide --anchor ssu.floor_copy > "$OUT/$TAG.wide.md"
cat "$OUT/$TAG.wide.md"
