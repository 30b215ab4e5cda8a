#!/usr/bin/env bash
# compute-sanitizer racecheck, one kgate run per row (a row that runs past its limit loses only
# itself), on ROWS of CASES for CANDIDATE against BASELINES; --no-peaks (cuBLAS is not under test).
# Usage: racecheck_rows.sh BUILD_DIR LOG_PREFIX CASES CANDIDATE BASELINES SECONDS_PER_ROW ROW...
set -uo pipefail
B=$1 prefix=$2 cases=$3 cand=$4 bases=$5 limit=$6
shift 6
export KGATE_SOURCE_DIR=$PWD
for row in "$@"; do
  t0=$SECONDS
  log="${prefix}_${row}.log"
  timeout "$limit" compute-sanitizer --tool racecheck --error-exitcode 9 "$B/kgate" run --quiet --no-peaks --cases "$cases" \
    --rows "$row" --candidate "$cand" --baseline "$bases" --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --blocks 2 \
    --policy correct --out "/tmp/race_$row.json" > "$log" 2>&1
  echo "racecheck $row: exit $? in $((SECONDS - t0)) s; $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$log" | tr '\n' ' ')"
  rm -f /tmp/race_"$row"*
done
