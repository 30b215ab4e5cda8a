#!/usr/bin/env bash
# Branch ssu-nl2-tune, one device call (~2 minutes): the BF16 mid kernel with the state slice
# in by one bulk copy (t_tmain), in and out by bulk copies (t_tma), the z gate with __fdividef
# (t_fastsilu), per-line prefetch again (t_pflines). 3 groups. Usage: ssu_diag5.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS='ssu-nemotron-h-bf16-b16,ssu-nemotron-h-bf16-b32,ssu-nemotron-h-bf16-b64,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-bf16-b32,ssu-mamba2-2.7b-bf16-b128,ssu-granite-like-bf16-b64,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-tp2-bf16-b64,ssu-nemotron-h-tp2-bf16-b64-pad,ssu-nemotron-h-bf16-b64-fused,ssu-mamba2-2.7b-bf16-b16-fused-unaligned'
"$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast \
  --baseline ssu.floor,ssu.t_tmain,ssu.t_tma,ssu.t_fastsilu,ssu.t_pflines --policy correct --out "$R/ssu_diag5.json"
"$K" report "$R/ssu_diag5.json" --format wide --anchor ssu.floor
