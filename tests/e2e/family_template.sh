#!/usr/bin/env bash
# The template family (kernels/axpy/, CPU only) runs the whole pipeline on the CPU backend:
# listed, run, audited and gated like any bundled family.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
"$KGATE" list >list.txt; check "list" 0 $?
expect_grep "list shows the template family's arms" "axpy.cpu_eigen" list.txt
"$KGATE" run --backend cpu --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --cases "$SRC/cases/axpy.json" \
  --candidate axpy.cpu_eigen --baseline axpy.cpu_scalar --policy correct --out axpy.json >out.txt 2>&1
check "run axpy" 0 $?
expect_grep "every row passes" "3 rows, 3 pass policy" out.txt
"$KGATE" audit axpy.json >/dev/null; check "audit" 0 $?
"$KGATE" gate axpy.json --policy correct >/dev/null; check "gate correct" 0 $?
python3 - axpy.json <<'PY' || fails=$((fails + 1))
import json, sys
body = json.load(open(sys.argv[1]))["body"]["predicate"]
rows = body["rows"]
assert len(rows) == 3 and all(r["params"]["n"] >= 4096 for r in rows), rows
print("ok: the receipt holds the table's three rows")
PY
finish
