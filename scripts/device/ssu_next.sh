#!/usr/bin/env bash
# Branch ssu-nl2-tune, one device call (~2 minutes plus the start): the BF16 mid-range rows
# against two tuning arms (kernels/ssu/NOTES.md, "Next"), 3 groups so a 1-2 % difference shows.
# Usage: ssu_next.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS='ssu-nemotron-h-bf16-b8,ssu-nemotron-h-bf16-b16,ssu-nemotron-h-bf16-b32,ssu-nemotron-h-bf16-b64,ssu-nemotron-h-tp2-bf16-b64,ssu-mamba2-2.7b-bf16-b32,ssu-granite-like-bf16-b64,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-tp2-bf16-b64-pad,ssu-nemotron-h-bf16-b64-fused,ssu-mamba2-2.7b-bf16-b16-fused-unaligned'
"$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast \
  --baseline ssu.floor,ssu.t_mid_copyfirst,ssu.t_mid_nl8 --policy correct --out "$R/ssu_next.json"
"$K" report "$R/ssu_next.json" --format wide --anchor ssu.floor
