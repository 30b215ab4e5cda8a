#!/usr/bin/env bash
# Branch ssu-nl2-tune, one device call (~1-2 minutes): occupancy (18 / 20 BF16 CTAs per SM) and
# a late z read on the BF16 mid-range kernel, against ssu.fast and the floor. 3 groups.
# Usage: ssu_diag2.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS='ssu-mamba2-2.7b-bf16-b32,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b32,ssu-granite-like-bf16-b64,ssu-nemotron-h-bf16-b16,ssu-nemotron-h-tp2-bf16-b64,ssu-nemotron-h-tp2-bf16-b64-pad,ssu-nemotron-h-bf16-b64-fused'
ARMS='ssu.floor,ssu.t_occ18,ssu.t_occ20,ssu.t_zlate,ssu.t_zlate18,ssu.d_noside'
"$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast \
  --baseline "$ARMS" --policy correct --out "$R/ssu_diag2.json"
"$K" report "$R/ssu_diag2.json" --format wide --anchor ssu.floor
