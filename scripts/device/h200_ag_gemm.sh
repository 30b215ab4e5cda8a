#!/usr/bin/env bash
# ag_gemm on one H200: the world-size-1 sweep (overlap vs the NCCL + cuBLAS baseline and the
# GEMM floor) and the simulated W = 2, 4, 8 runs (also vs the gather alone), each receipt audited
# and tabulated (scripts/ag_gemm_table.py). Usage: h200_ag_gemm.sh [BUILD_DIR]; receipts leave as
# $OUT/receipts_h200_ag_gemm.tar (scripts/device/env.sh).
set -uo pipefail
source "$(dirname "$0")/env.sh" "${1:-build}"
run() {
  local name=$1; shift
  local t0=$SECONDS
  "$K" run --quiet --out "$R/$name.json" "$@"
  echo "$name: rc=$? campaign wall $((SECONDS - t0)) s"
  "$K" audit "$R/$name.json" | tail -1
  python3 scripts/ag_gemm_table.py "$R/$name.json"
}
run ag_gemm_overlap_vs_baseline --cases cases/ag_gemm.json --candidate ag_gemm.overlap \
  --baseline ag_gemm.baseline,ag_gemm.floor --policy cases/policies/ag_gemm.json
for W in 2 4 8; do
  run ag_gemm_simulated_w$W --cases cases/ag_gemm_simulated.json --rows "w$W-*" --simulate-ranks $W \
    --candidate ag_gemm.overlap --baseline ag_gemm.baseline,ag_gemm.floor,ag_gemm.gather --policy cases/policies/ag_gemm_simulated.json
done
