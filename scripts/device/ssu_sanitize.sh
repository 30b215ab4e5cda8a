#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck on ssu.fast, ssu.floor and ssu.floor_copy, one row per kernel path:
# NL = 2 (b1), NL = 4 with pad slots (b8-pad), unaligned fused views (b16-fused-unaligned),
# z (b32-z), NL = 8 with the side-row prefetch (b128), FP32 state (fp32 b16-z). CUPTI is held
# by compute-sanitizer, so kgate falls back to events and says so. Logs: $OUT/sanitizer_*.log.
# Usage: ssu_sanitize.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
sanitize sanitizer cases/ssu.json \
  'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-fp32-b16-z' \
  ssu.fast ssu.floor,ssu.floor_copy
