#!/usr/bin/env bash
# Branch ssu-nl2-tune, one device call (~1-2 minutes): the side-row prefetch as per-line
# prefetch.global.L2 (t_pflines) or as real sector reads (t_pfloads) instead of the bulk prefetch,
# against ssu.fast and the floor. 3 groups. Usage: ssu_diag4.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS='ssu-nemotron-h-bf16-b16,ssu-nemotron-h-bf16-b32,ssu-nemotron-h-bf16-b64,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-bf16-b32,ssu-mamba2-2.7b-bf16-b128,ssu-granite-like-bf16-b64,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-tp2-bf16-b64,ssu-nemotron-h-tp2-bf16-b64-pad,ssu-nemotron-h-bf16-b64-fused,ssu-mamba2-2.7b-bf16-b16-fused-unaligned'
"$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast \
  --baseline ssu.floor,ssu.t_pflines,ssu.t_pfloads --policy correct --out "$R/ssu_diag4.json"
"$K" report "$R/ssu_diag4.json" --format wide --anchor ssu.floor
