# Sourced by the sparse_mla receipt calls (from scripts/device/calls/sparse_mla_receipts_session19.sh on;
# that call ran these commands inline). Needs B (the build), O (the output folder), FM (the FlashMLA arm).
# mla_memcheck ROWS: compute-sanitizer memcheck of sparse_mla.fast against the floor on ROWS of the 94.
# mla_near ROWS: three more runs of ROWS against FlashMLA, one line of ratios per run.
mla_memcheck() {
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$B/kgate" run --quiet --no-peaks --cases cases/sparse_mla_94.json \
    --rows "$1" --candidate sparse_mla.fast --baseline sparse_mla.floor --groups 1 --m 1 \
    --warmup-calls 1 --warmup-us 0 --policy correct --out "$O/san.json" > "$O/sanitizer_memcheck_rows.log" 2>&1
  echo "memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$O/sanitizer_memcheck_rows.log")"; rm -f "$O"/san*.json
}
mla_near() {
  local i
  for i in 1 2 3; do
    timeout 40 "$B/kgate" run --quiet --cases cases/sparse_mla_94.json --rows "$1" \
      --candidate sparse_mla.fast --baseline "$FM" --policy correct --out "$O/near_fm_$i.json" > /dev/null 2>&1
    echo "spread $i: $(python3 scripts/sparse_mla_table.py "$O/near_fm_$i.json" | awk 'NR>1 && /^mla/{printf "%s %s; ", substr($1,1,6), $4}')"
  done
}
