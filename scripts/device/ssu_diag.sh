#!/usr/bin/env bash
# Branch ssu-nl2-tune, one device call (~3-4 minutes): where the BF16 mid-range gap to the floor
# comes from. Diagnostic arms remove one kind of side input each (constants, no loads), or all of
# them only in the first resident wave; two tuning arms (copy-first, NL = 8). 3 groups.
# Usage: ssu_diag.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS='ssu-mamba2-2.7b-bf16-b32,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b32,ssu-granite-like-bf16-b64,ssu-nemotron-h-bf16-b16,ssu-nemotron-h-tp2-bf16-b64'
ARMS='ssu.floor,ssu.t_mid_copyfirst,ssu.t_mid_nl8,ssu.d_nobc,ssu.d_nox,ssu.d_noz,ssu.d_now,ssu.d_noside,ssu.d_wave1'
"$K" run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast \
  --baseline "$ARMS" --policy correct --out "$R/ssu_diag.json"
"$K" report "$R/ssu_diag.json" --format wide --anchor ssu.floor
cuobjdump --dump-resource-usage "$K" 2>/dev/null | grep -A1 "ssu_fast_mid_kernel" | grep -o "REG:[0-9]*\|Function [^:]*" | paste - - | c++filt | head -40 > "$R/resource_usage.txt" || true
