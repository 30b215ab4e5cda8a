#!/usr/bin/env bash
# Exports on the H200 (issue 12): the trapping export under --isolate, the GPU tests, then two
# receipts over all 42 rows of cases/ssu.json: ssu.fast vs FlashInfer's stock kernel (the peer
# export, correct,strict, whatever it shows) and ssu.fast vs its own export (the same kernel
# through both routes: correct,parity,fallback,limit(0.045)). $1 = folder with kgate,
# kgate_gpu_tests and exports/ (the test export libraries); the peer and kgate exports are
# under build-peers/ (carried). Receipts go to $OUT/receipts_<script>.tar, logs to $OUT.
set -uo pipefail
source "$(dirname "$0")/env.sh"
FI=build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so
EX=build-peers/kgate_ssu_fast/libkgate_ssu_fast.so
sha256sum "$FI" "$EX" "$K" | tee "$OUT/sha256.txt"
KGATE_TEST_EXPORTS_DIR="$B/exports" bash tests/gpu/export_fault.sh "$K" "$PWD" 2>&1 | tee "$OUT/export_fault.log"
KGATE_TEST_EXPORTS_DIR="$B/exports" bash tests/gpu/export_example.sh "$K" "$PWD" 2>&1 | tee "$OUT/export_example.log"
"$B/kgate_gpu_tests" >"$OUT/gpu_tests.log" 2>&1; echo "kgate_gpu_tests rc=$?"; tail -3 "$OUT/gpu_tests.log"
"$K" list --export "$FI" --export "$EX" | grep export:
time "$K" run --quiet --cases cases/ssu.json --candidate ssu.fast --baseline "export:$FI:ssu.flashinfer_stock" \
  --policy correct,strict --out "$R/ssu_fast_vs_flashinfer_stock.json"
time "$K" run --quiet --cases cases/ssu.json --candidate ssu.fast --baseline "export:$EX:ssu.fast" \
  --policy 'correct,parity,fallback,limit(0.045)' --out "$R/ssu_fast_source_vs_export.json"
"$K" audit $(ls "$R"/*.json | grep -v "\.samples\.json$")
"$K" gate "$R/ssu_fast_vs_flashinfer_stock.json" --policy correct,strict --against-tree .
"$K" gate "$R/ssu_fast_source_vs_export.json" --policy 'correct,parity,fallback,limit(0.045)' --against-tree .
"$K" report "$R/ssu_fast_vs_flashinfer_stock.json" --format wide
"$K" report "$R/ssu_fast_source_vs_export.json" --format wide
