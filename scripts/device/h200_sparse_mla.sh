#!/usr/bin/env bash
# The sparse_mla receipts of the sparse MLA issue on the H200, default protocol:
# 1. the 94-row campaign: sparse_mla.fast vs sparse_mla.baseline (strict) and sparse_mla.floor
#    (reported), cases/policies/sparse_mla_vs_baseline.json, and its wall time;
# 2. fast vs FlashMLA's sparse decode (the peer export) on the FP8 h64/h128 rows,
#    cases/policies/sparse_mla_vs_flashmla.json;
# 3. fast vs baseline on the hardening rows, correct,strict.
# Then audit, gate --against-tree and the tables (scripts/sparse_mla_table.py); with SANITIZE=1,
# compute-sanitizer memcheck and racecheck on eight hardening rows for fast, baseline and floor.
# Receipts: $OUT/receipts_h200_sparse_mla.tar. Usage: h200_sparse_mla.sh BIN [STEPS] (default "1 2 3";
# FM_LIB: the FlashMLA export, default build-peers/flashmla_sparse/libkgate_flashmla_sparse.so)
set -uo pipefail
source "$(dirname "$0")/env.sh"
STEPS=${2:-1 2 3}
FM=export:${FM_LIB:-$PWD/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so}:sparse_mla.flashmla
PB=cases/policies/sparse_mla_vs_baseline.json PF=cases/policies/sparse_mla_vs_flashmla.json
for s in $STEPS; do
  case $s in
    1) /usr/bin/time -f "campaign wall %e s" "$K" run --quiet --cases cases/sparse_mla_94.json --candidate sparse_mla.fast \
         --baseline sparse_mla.baseline,sparse_mla.floor --policy $PB --out "$R/sparse_mla_fast_vs_baseline.json" ;;
    2) "$K" run --quiet --cases cases/sparse_mla_94.json --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' --candidate sparse_mla.fast \
         --baseline "$FM" --policy $PF --out "$R/sparse_mla_fast_vs_flashmla.json" ;;
    3) "$K" run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
         --policy correct,strict --out "$R/sparse_mla_hardening_fast_vs_baseline.json" ;;
  esac
done
"$K" audit $(ls "$R"/*.json | grep -v "\.samples\.json$")
gate() { [ -f "$R/$1.json" ] && { "$K" gate "$R/$1.json" --policy "$2" --against-tree . | tail -1; python3 scripts/sparse_mla_table.py "$R/$1.json" | tail -2; }; }
gate sparse_mla_fast_vs_baseline $PB
gate sparse_mla_fast_vs_flashmla $PF
# Where the FlashMLA export's time goes per kernel (rows' activity_us, builds from 37c7182 on).
[ -f "$R/sparse_mla_fast_vs_flashmla.json" ] && python3 scripts/activity_table.py "$R/sparse_mla_fast_vs_flashmla.json" flashmla
gate sparse_mla_hardening_fast_vs_baseline correct,strict
[ "${SANITIZE:-0}" = 1 ] && sanitize sanitizer_mla cases/sparse_mla_hardening.json \
  '*-offset-concat-pad,mla-hard-bf16-h64-empty-tokens,mla-hard-fp8-h128-all-invalid,mla-hard-fp8-h64-one-token-offset' \
  sparse_mla.fast sparse_mla.baseline,sparse_mla.floor
true
