# Sourced by the device scripts: $1 = folder with kgate (default build). Sets B, K, OUT, R.
# Receipts are written to R, a scratch folder outside OUT, and leave as one file per script,
# $OUT/receipts_<script>.tar, when the script exits: the device returns only a few files per
# call, so the receipts and their sidecars must not also lie under OUT one by one, and two
# scripts in one call must not overwrite each other's tar.
B=$(cd "${1:-build}" && pwd)
K="$B/kgate"
OUT=${OUT:-out/device}
mkdir -p "$OUT"
R=$(mktemp -d)
TAR="$OUT/receipts_$(basename "$0" .sh).tar"
trap 'tar -C "$R" -cf "$TAR" . && rm -rf "$R"' EXIT
export KGATE_SOURCE_DIR=$PWD

# compute-sanitizer memcheck and racecheck, one kgate run each, on ROWS of CASES for CANDIDATE
# against BASELINES; logs $OUT/<PREFIX>_<tool>.log, one summary line per tool. CUPTI is held by
# the sanitizer, so kgate falls back to events and says so. --no-peaks: the environment's GEMM
# peak runs cuBLAS (nvjet_*), inside which racecheck reports hazards and, with that kernel
# filtered out, fails on a hardware exception (receipts/sm_90/logs/sanitizer_racecheck_*_b7ae477.log):
# no kernel under test is cuBLAS. Usage: sanitize PREFIX CASES ROWS CANDIDATE BASELINES
sanitize() {
  local prefix=$1 cases=$2 rows=$3 candidate=$4 baselines=$5 tool
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 "$K" run --quiet --no-peaks --cases "$cases" --rows "$rows" \
      --candidate "$candidate" --baseline "$baselines" --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 \
      --policy correct --out "$OUT/san_$tool.json" > "$OUT/${prefix}_$tool.log" 2>&1
    echo "compute-sanitizer $tool: exit $? ; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|falling back' "$OUT/${prefix}_$tool.log" | tr '\n' ' ')"
  done
  rm -f "$OUT"/san_*
}
