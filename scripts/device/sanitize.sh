#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over one row per kernel path of each family's
# candidate and baselines, one short `kgate run` per tool (correctness, then one sample per pair).
# CUPTI is held by the sanitizer, so kgate times with events and says so; --no-peaks because the
# environment's GEMM peak runs cuBLAS, which is not a kernel under test and trips racecheck.
#
# usage: scripts/device/sanitize.sh [--build DIR] [--log-dir DIR] [FAMILY...]   (default: ssu sparse_mla)
# Prints one line per family and tool; exit 1 when any tool reports an error.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build logs=${OUT:-out}/sanitize families=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --log-dir) logs=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    ssu|sparse_mla) families+=("$1"); shift ;;
    *) echo "sanitize.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ "${#families[@]}" -gt 0 ] || families=(ssu sparse_mla)
K=$build/kgate
mkdir -p "$logs"
rc=0
# sanitize FAMILY CASES ROWS CANDIDATE BASELINES
sanitize() {
  local family=$1 cases=$2 rows=$3 candidate=$4 baselines=$5 tool log
  for tool in memcheck racecheck; do
    log=$logs/${family}_$tool.log
    compute-sanitizer --tool $tool --error-exitcode 9 "$K" run --quiet --no-peaks --cases "$cases" --rows "$rows" \
      --candidate "$candidate" --baseline "$baselines" --groups 1 --blocks 2 --m 1 --warmup-calls 1 --warmup-us 0 \
      --policy correct --force --out "$logs/${family}_$tool.json" > "$log" 2>&1
    local status=$?
    [ $status -eq 0 ] || rc=1
    echo "$family $tool: exit $status; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | sort | uniq -c | tr -s ' \n' ' ')"
  done
}
for f in "${families[@]}"; do
  case "$f" in
    # ssu: NL = 2 (b1), pad slots, unaligned fused views, z, the side-row prefetch (b128), FP32 state.
    ssu) sanitize ssu cases/ssu.json \
      'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-fp32-b16-z' \
      ssu.fast ssu.baseline,ssu.floor ;;
    # sparse_mla: lockstep, the 2-CTA cluster, planned and queued warp-specialized rows, BF16 and FP8.
    sparse_mla) sanitize sparse_mla cases/sparse_mla_94.json 'mla-06-*,mla-34-*,mla-43-*,mla-86-*' \
      sparse_mla.fast sparse_mla.baseline ;;
  esac
done
exit $rc
