#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck on ssu.fast, ssu.floor and ssu.floor_copy, one row per kernel path:
# NL = 2 (b1), NL = 4 with pad slots (b8-pad), unaligned fused views (b16-fused-unaligned),
# z (b32-z), NL = 8 with the side-row prefetch (b128), FP32 state (fp32 b16-z). CUPTI is held
# by compute-sanitizer, so kgate falls back to events and says so. Logs: $OUT/sanitizer_*.log.
# Usage: ssu_sanitize.sh BIN
set -uo pipefail
source "$(dirname "$0")/env.sh"
# --no-peaks: the environment's GEMM peak runs cuBLAS (nvjet_*), inside which racecheck reports
# hazards and, with that kernel filtered out, fails on a hardware exception
# (receipts/sm_90/logs/sanitizer_racecheck_*_b7ae477.log): no kernel under test is cuBLAS.
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 "$K" run --quiet --no-peaks --cases cases/ssu.json \
    --rows 'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-fp32-b16-z' \
    --candidate ssu.fast --baseline ssu.floor,ssu.floor_copy --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 \
    --policy correct --out "$OUT/san_$tool.json" > "$OUT/sanitizer_$tool.log" 2>&1
  echo "compute-sanitizer $tool: exit $? ; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|falling back' "$OUT/sanitizer_$tool.log" | tr '\n' ' ')"
done
rm -f "$OUT"/san_*
