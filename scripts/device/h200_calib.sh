#!/usr/bin/env bash
# calib receipts on the H200: timer accuracy + A/A (calib), A/A vs a known 2 % (calib_longer), cold vs warm copy, 94-row cost,
# GPU tests, compute-sanitizer on ssu correctness rows. Receipts go to $OUT/receipts_<script>.tar.
set -uo pipefail
source "$(dirname "$0")/env.sh"
"$B/kgate_gpu_tests" 2>&1 | tail -3
bash tests/gpu/calib_smoke.sh "$K" "$PWD" 2>&1 | tail -1
bash tests/gpu/ssu_smoke.sh "$K" "$PWD" 2>&1 | tail -1
"$K" run --quiet --cases cases/calib.json --candidate calib.spin --baseline calib.spin_twin \
  --policy 'correct,drift(0.02)' --out "$R/calib_aa.json"
# The interval's proof: on every spin row of >= 5 us, calib.spin against its twin (A/A: never
# strict) and against calib.spin_longer (the same spin for 2 % more cycles: always strict).
"$K" run --quiet --cases cases/calib.json --rows 'spin-1*,spin-2*,spin-5*' --candidate calib.spin \
  --baseline calib.spin_twin,calib.spin_longer --policy cases/policies/calib_aa_longer.json --out "$R/calib_longer.json"
"$K" run --quiet --warm --cases cases/calib.json --rows 'copy-*' --candidate calib.spin --baseline calib.spin_twin \
  --policy correct --out "$R/calib_copy_warm.json"
start=$(date +%s.%N)
"$K" run --quiet --cases cases/calib_94.json --candidate calib.spin --baseline calib.spin_twin --policy correct \
  --out "$R/calib_94_cost.json"
end=$(date +%s.%N)
echo "94-row campaign wall: $(python3 -c "print(round($end - $start, 1))") s"
"$K" audit "$R"/calib_aa.json "$R"/calib_longer.json "$R"/calib_copy_warm.json "$R"/calib_94_cost.json
python3 scripts/calib_table.py "$R/calib_aa.json" "$R/calib_copy_warm.json"
# Sanitizers (env.sh's sanitize).
sanitize sanitizer cases/ssu.json \
  'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-bf16-b32-z,ssu-granite-like-fp32-b8' \
  ssu.fast ssu.baseline,ssu.floor
