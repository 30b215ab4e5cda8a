#!/usr/bin/env bash
# compute-sanitizer memcheck of ssu.fast and ssu.floor on ROWS of cases/ssu.json in one kgate run
# (--no-peaks: cuBLAS is not under test; CUPTI is held by the sanitizer, so kgate times with
# events and says so). One summary line. Usage: ssu_memcheck.sh BIN LOG ROWS
set -uo pipefail
B=$1 log=$2 rows=$3
export KGATE_SOURCE_DIR=$PWD
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/kgate" run --quiet --no-peaks --cases cases/ssu.json \
  --rows "$rows" --candidate ssu.fast --baseline ssu.floor --groups 1 --m 1 \
  --warmup-calls 1 --warmup-us 0 --policy correct --out /tmp/san_memcheck.json > "$log" 2>&1
echo "memcheck $(basename "$log" .log): exit $? ; $(grep -E 'ERROR SUMMARY|falling back|pass policy' "$log" | tr '\n' ' ')"
rm -f /tmp/san_memcheck*
