#!/usr/bin/env bash
# Where sparse_mla.fast's block step goes, by the hardware: Nsight Compute on one launch of its main
# kernel (warp stall reasons, scheduler and memory sections; clocks left alone) for each ROW, and the
# kernel's SASS (cuobjdump). Outputs: $OUT/ncu_<row>.txt, $OUT/sass_sparse_mla_fast.txt.
# Usage: sparse_mla_profile.sh BIN [ROW ...] (default: mla-03 and mla-86, one short and one long row);
# KERNEL: the kernel-name regex (default: both paths' main kernels).
set -uo pipefail
source "$(dirname "$0")/env.sh"
ROWS=("${@:2}")
[ ${#ROWS[@]} -gt 0 ] || ROWS=(mla-03-bf16-h64-q5-swa128-v1 mla-86-bf16-h64-q257-swa128-topk4x)
for row in "${ROWS[@]}"; do
  ncu --clock-control none --kernel-name "regex:${KERNEL:-sparse_mla_fast_(wg_)?kernel}" --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    --section LaunchStats --section Occupancy --section SourceCounters --section InstructionStats \
    "$K" run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$row" --candidate sparse_mla.fast \
    --baseline sparse_mla.floor --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct \
    --out "$R/profile_$row.json" > "$OUT/ncu_$row.txt" 2>&1
  echo "ncu $row: exit $? ; $(grep -cE 'Stall|Warp Cycles' "$OUT/ncu_$row.txt") stall lines"
done
# Every instance of the kernel (cuobjdump's --function wants exact mangled names, so filter).
cuobjdump --dump-sass "$K" 2>&1 | awk '/Function : /{p = /sparse_mla_fast_(wg_)?kernel/} p' > "$OUT/sass_sparse_mla_fast.txt"
echo "sass: $(wc -l < "$OUT/sass_sparse_mla_fast.txt") lines"
