#!/usr/bin/env bash
# Sanitizer statements for the committed ssu and sparse_mla receipts: `kgate sanitize` re-runs
# each receipt's correctness calls (no timing) under compute-sanitizer memcheck, racecheck,
# synccheck and initcheck, one process per arm and tool over one row per kernel path, kgate's own
# kernels excluded, and writes R.sanitize.json (logs in R.sanitize.logs/) beside each receipt.
# `kgate audit R` checks it; `kgate gate R --policy correct,sanitized` judges the rows it covers.
#
# usage: scripts/device/sanitize.sh [--build DIR] [--receipts DIR] [--all-rows] [FAMILY...]
#   --receipts DIR  where the receipts are (default receipts/sm_90/<this GPU's folder>)
#   --all-rows      every row of each receipt (ssu 42 rows, sparse_mla 94: several times longer)
#   FAMILY          ssu | sparse_mla (default both)
# Prints kgate sanitize's line per receipt; exit 1 when a run is not clean.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build receipts="" all_rows=0 families=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --receipts) receipts=$2; shift 2 ;;
    --all-rows) all_rows=1; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    ssu|sparse_mla) families+=("$1"); shift ;;
    *) echo "sanitize.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ "${#families[@]}" -gt 0 ] || families=(ssu sparse_mla)
K=$build/kgate
source scripts/device/gpu_folder.sh
[ -n "$receipts" ] || receipts=$(gpu_folder "$K") || exit 2
rc=0
# sanitize RECEIPT ROWS
sanitize() {
  local rows=()
  [ "$all_rows" -eq 1 ] || rows=(--rows "$2")
  "$K" sanitize "$receipts/$1" "${rows[@]}" --quiet || rc=1
}
for f in "${families[@]}"; do
  case "$f" in
    # ssu: NL = 2 (b1), pad slots, unaligned fused views, z, the side-row prefetch (b128), FP32 state.
    ssu) sanitize ssu_fast_vs_baseline.json \
      'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-fp32-b16-z' ;;
    # sparse_mla: lockstep, the 2-CTA cluster, planned and queued warp-specialized rows, BF16 and FP8.
    sparse_mla) sanitize sparse_mla_fast_vs_baseline.json 'mla-06-*,mla-34-*,mla-43-*,mla-86-*' ;;
  esac
done
exit $rc
