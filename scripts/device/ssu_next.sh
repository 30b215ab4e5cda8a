#!/usr/bin/env bash
# Branch ssu-next, one device call: (1) where the candidate's fixed ~2 us over the floor goes
# (diagnostic arms: no side inputs / no reduction / state copy through the same cp.async
# staging), v8 (vector B/C on the NL = 4 path) and v9 (v8 at <= 48 registers: 20 BF16 CTAs per SM)
# on the rows that miss; v10 (persistent, all inputs async) in a run of its own; (2) the GPU
# tests. The receipts are a separate call (h200_ssu.sh), once ssu.fast is what the tuning says.
# Usage: ssu_next.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS='ssu-nemotron-h-bf16-b8,ssu-nemotron-h-bf16-b32,ssu-nemotron-h-bf16-b64,ssu-nemotron-h-bf16-b128,ssu-nemotron-h-tp2-bf16-b64,ssu-mamba2-2.7b-bf16-b32,ssu-granite-like-bf16-b64,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-tp2-bf16-b64-pad,ssu-nemotron-h-fp32-b1,ssu-nemotron-h-fp32-b32,ssu-mamba2-2.7b-fp32-b16-z'
bash "$(dirname "$0")/ssu_variants.sh" "$1" "$ROWS" ssu.floor,ssu.floor_stream,ssu.v8,ssu.v9,ssu.d_noside,ssu.d_noreduce,ssu.d_copy,ssu.baseline
# v10 (persistent, every input through cp.async) in a run of its own: if it were wrong on a row,
# that row would not be timed, and the arms above must not lose their timings to it.
"$K" run --quiet --cases cases/ssu.json --rows "$ROWS,ssu-nemotron-h-bf16-b256,ssu-nemotron-h-fp32-b256" \
  --candidate ssu.v10 --baseline ssu.floor,ssu.floor_stream,ssu.fast --groups 1 --m 3 --policy correct --out "$R/ssu_v10.json"
"$K" report "$R/ssu_v10.json" --format wide --anchor ssu.floor
"$B/kgate_gpu_tests" 2>&1 | tail -3
bash tests/gpu/ssu_smoke.sh "$K" "$PWD" 2>&1 | tail -1
