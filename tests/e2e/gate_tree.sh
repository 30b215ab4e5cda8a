#!/usr/bin/env bash
# gate --against-tree on a receipt made outside the source root: the case table was recorded by
# its absolute path, which names no tree file, so the receipt is stale (the old check skipped
# the name and missed any edit of the table).
source "$(dirname "$0")/lib.sh"
cd "$WORK"
"$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --rows 'ag-cpu-w2-m32*' \
  --cases "$SRC/cases/cpu/ag_gemm.json" --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked \
  --out abs.json >/dev/null 2>&1
check "run with an absolute case table path" 0 $?
"$KGATE" gate abs.json --policy correct --against-tree "$SRC" >gate.txt; check "gate: stale" 1 $?
expect_grep "the absolute case table is named" "STALE $SRC/cases/cpu/ag_gemm.json: recorded outside the tree" gate.txt
expect_grep "summary counts the stale sources" "stale vs .* ([1-9][0-9]* sources, [0-9]* protocol)" gate.txt
"$KGATE" gate abs.json --policy correct >/dev/null; check "without --against-tree the receipt still passes" 0 $?
finish
