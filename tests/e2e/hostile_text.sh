#!/usr/bin/env bash
# Case-table strings that would drive a terminal (ESC sequences, BEL, the C1 CSI), open HTML,
# end a table cell or a line: list, the run's progress and summary lines, gate, audit, errors
# and every report format show them as text, never as raw bytes or markup.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
mkdir tables
python3 - <<'PY'
import json
evil = "x\x1b]0;pwned\x07\x1b[31mred\u009b2J<script>alert(1)</script>|[a](http://e.x)\nline"
row = {"batch": 1, "nheads": 8, "ngroups": 1, "pool_slots": 4, "state_dtype": "bf16"}
json.dump({"table": "evil", "family": "ssu", "description": evil,
           "rows": [{"id": evil, "params": row, "tags": {"band": evil}},
                    {"id": "plain", "params": row, "tags": {"band": "b1"}}]},
          open("tables/evil.json", "w"))
json.dump({"table": "bad", "family": "ssu", "rows": [{"id": evil, "params": {}}]}, open("tables/bad.json", "w"))
PY
raw_free() {  # raw_free "what" FILE...: no control byte but the line feed, no C1 control
  if python3 - "$@" <<'PY'; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
import re, sys
bad = False
for f in sys.argv[2:]:
    data = open(f, "rb").read()
    hit = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
    if hit:
        print(f"{f}: raw {hit.group()!r} at byte {hit.start()}: {data[max(0, hit.start() - 40):hit.start() + 40]!r}")
        bad = True
sys.exit(1 if bad else 0)
PY
}
"$KGATE" list --cases-dir tables >list.txt 2>&1; check "list" 0 $?
raw_free "list: the description and a bad table's error escaped" list.txt
expect_grep "list: the escape shown as text" 'x\\x1b]0;pwned\\x07' list.txt
"$KGATE" run --backend cpu --cases tables/evil.json --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar \
  --groups 1 --blocks 2 --m 1 --warmup-calls 1 --warmup-us 0 --out r.json >run.out 2>run.err
check "run" 0 $?
raw_free "run: progress and summary lines escaped" run.out run.err
expect_grep "run: the progress line names the row as text" 'row [12]/2 x\\x1b' run.err
"$KGATE" audit r.json >audit.txt 2>&1; check "audit" 0 $?
"$KGATE" gate r.json --policy 'correct,limit(0)' >gate.txt 2>&1
raw_free "gate: the failing rows named as text" gate.txt
for f in md csv html wide; do
  "$KGATE" report r.json --format "$f" >"report.$f" 2>&1; check "report $f" 0 $?
  raw_free "report $f: escaped" "report.$f"
done
expect_grep "report md: HTML escaped, the pipe and the link escaped" '&lt;script>alert(1)&lt;/script>\\|\[a\\](http' report.md
expect_grep "report html: HTML escaped" '&lt;script&gt;alert(1)&lt;/script&gt;' report.html
! grep -q '<script>alert' report.html && echo "ok: report html: no script element from the table" || { echo "FAIL: report html holds the table's <script>"; fails=$((fails + 1)); }
[ "$(wc -l <report.csv)" -eq 3 ] && echo "ok: report csv: one line per record" || { echo "FAIL: csv records span lines"; cat report.csv; fails=$((fails + 1)); }
# An error naming the user's text (a --rows glob that matches no row) is one escaped line.
"$KGATE" run --backend cpu --quiet --cases tables/evil.json --rows $'\e[31m*' --candidate ssu.cpu_eigen \
  --baseline ssu.cpu_scalar --out e.json >/dev/null 2>err.txt
check "a --rows of escapes" 2 $?
raw_free "error line escaped" err.txt
[ "$(wc -l <err.txt)" -eq 1 ] && echo "ok: error: one line" || { echo "FAIL: error not one line"; cat err.txt; fails=$((fails + 1)); }
finish
