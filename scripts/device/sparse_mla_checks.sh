# Sourced by the sparse_mla receipt calls (from scripts/device/calls/sparse_mla_receipts_session19.sh on;
# that call ran these commands inline). Needs B (the build), O (the output folder), FM (the FlashMLA arm).
# mla_memcheck ROWS: compute-sanitizer memcheck of sparse_mla.fast against the floor on ROWS of the 94.
# mla_near ROWS: three more runs of ROWS against FlashMLA, one line of ratios per run.
# mla_ncu NAME ROW BASELINE KERNEL_REGEX: Nsight Compute, full set, on the third launch of the kernel
# (clocks left alone): $O/NAME.details.txt, $O/NAME.sass.csv (for scripts/ncu_stall_summary.py), headline lines.
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
mla_ncu() {
  timeout 150 ncu --clock-control none --kernel-name regex:"$4" --launch-skip 2 --launch-count 1 --set full --import-source no \
    -o "$O/$1" "$B/kgate" run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$2" --candidate sparse_mla.fast \
    --baseline "$3" --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --force --out "$O/$1.json" > "$O/$1.log" 2>&1
  echo "$1 rc=$?"
  ncu -i "$O/$1.ncu-rep" --page details > "$O/$1.details.txt" 2>&1
  ncu -i "$O/$1.ncu-rep" --page source --csv --print-source sass > "$O/$1.sass.csv" 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Instructions  |Warp Cycles Per Issued|L2 Hit Rate|DRAM Throughput|Memory Throughput" \
    "$O/$1.details.txt" | head -10
}
