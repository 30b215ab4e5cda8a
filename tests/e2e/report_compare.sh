#!/usr/bin/env bash
# `kgate report` in every format and `kgate compare` with its exit codes, on CPU-backend receipts.
# A resolved regression needs a change far beyond CPU noise: the row "x" is a 64x128x256 GEMM in
# one table (Eigen ~2x the blocked loop) and a 1x1x1 GEMM in the other (Eigen's overhead makes it
# slower), so x's ratio drops by ~3x between the receipts.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
run() { "$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 "$@" >/dev/null 2>&1; }
cat >big.json <<'EOF'
{"table": "x_big", "family": "ag_gemm", "rows": [
  {"id": "x", "params": {"world_size": 1, "m": 64, "n": 128, "k": 256}, "tags": {"shape": "x"}},
  {"id": "only-big", "params": {"world_size": 1, "m": 16, "n": 16, "k": 16}, "tags": {"shape": "other"}}]}
EOF
cat >tiny.json <<'EOF'
{"table": "x_tiny", "family": "ag_gemm", "rows": [
  {"id": "x", "params": {"world_size": 1, "m": 1, "n": 1, "k": 1}, "tags": {"shape": "x"}}]}
EOF
arms=(--candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked)
run --cases big.json "${arms[@]}" --out old.json; check "run big" 0 $?
run --cases tiny.json "${arms[@]}" --out new.json; check "run tiny" 0 $?
run --cases "$SRC/cases/cpu/ssu.json" --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --out ssu.json
check "run ssu" 0 $?

# report: every format, stdout and --out alike.
for f in md html json csv wide; do
  "$KGATE" report ssu.json --format "$f" >"r.$f"; check "report --format $f" 0 $?
  "$KGATE" report ssu.json --format "$f" --out "o.$f"; check "report --format $f --out" 0 $?
  cmp -s "r.$f" "o.$f"; check "--out writes what stdout prints ($f)" 0 $?
done
expect_grep "md: derived-file line names the receipt" "Derived file: made by \`kgate report\` from receipt \`ssu.json\`" r.md
expect_grep "md: ratio direction" "Ratio = baseline median / candidate median: > 1 means the candidate is faster." r.md
expect_grep "md: verdict counts" "Verdict: 4 of 4 rows pass the policy" r.md
expect_grep "md: the commit" "commit: \`" r.md
expect_grep "html: one row element per row" 'tbody id="row-ssu-cpu-h8g1-b1-bf16"' r.html
python3 -c "import json,sys; j=json.load(open('r.json')); assert j['schema']=='kgate.report/1' and len(j['rows'])==4" 2>/dev/null
check "json parses, schema and rows" 0 $?
[ "$(wc -l <r.csv)" -eq 5 ]; check "csv: header + one line per row and pair" 0 $?
expect_grep "csv: interval and work columns" "ratio_ci_lo,ratio_ci_hi" r.csv
expect_grep "wide: geomean line" "| geomean over 4 rows |" r.wide
"$KGATE" report ssu.json --format pdf >/dev/null 2>&1; check "unknown format" 2 $?
"$KGATE" report ssu.json --out /dev/null >/dev/null 2>&1; check "--out that is not a regular file" 2 $?

# compare: a receipt against itself changes by exactly 1 (nothing SLOWER: exit 0).
"$KGATE" compare ssu.json ssu.json >same.md; check "compare a receipt with itself" 0 $?
expect_grep "compare: every pair matched" "of 4 matched pairs" same.md
expect_grep "compare: change 1" "| 1.000 (+0.00%) |" same.md
# x drops ~3x: SLOWER, exit 1; the rows of one receipt only are listed.
"$KGATE" compare old.json new.json >slower.md; check "compare: a resolved regression exits 1" 1 $?
expect_grep "compare: x is SLOWER" "| \`x\` | \`ag_gemm.cpu_blocked\` | \*\*SLOWER\*\* |" slower.md
expect_grep "compare: row only in old" "only in old: \`only-big\`" slower.md
expect_grep "compare: both commits and tables" "| table | x_big" slower.md
"$KGATE" compare old.json new.json --json >slower.json; check "compare --json exits 1 too" 1 $?
python3 -c "import json; j=json.load(open('slower.json')); p=j['pairs'][0]; \
assert j['any_slower'] and p['class']=='SLOWER' and p['change_ci']['hi'] < 1 and j['only_old'][0]['row']=='only-big'" 2>/dev/null
check "compare --json: class, interval, rows in one receipt" 0 $?
# The other way round x gains ~3x: FASTER, exit 0.
"$KGATE" compare new.json old.json >faster.md; check "compare: FASTER exits 0" 0 $?
expect_grep "compare: x is FASTER" "\*\*FASTER\*\*" faster.md
expect_grep "compare: row only in new" "only in new: \`only-big\`" faster.md
# No pair in common: exit 2.
"$KGATE" compare old.json ssu.json >/dev/null 2>nomatch.txt; check "compare: no rows match" 2 $?
expect_grep "compare: says so" "no rows match" nomatch.txt
"$KGATE" compare old.json new.json --threshold 1.5 >/dev/null 2>&1; check "compare: threshold out of range" 2 $?
# --help answers formats, ratio direction, the interval, the classes and the exit codes.
"$KGATE" report --help >rh.txt; check "report --help" 0 $?
for w in "md:" "html:" "json:" "csv:" "wide:" "baseline median / candidate median" "bootstrap" "Exit codes"; do
  expect_grep "report --help: $w" "$w" rh.txt
done
"$KGATE" compare --help >ch.txt; check "compare --help" 0 $?
for w in FASTER SLOWER SAME UNRESOLVED "quadrature" "baseline median / candidate median" "Exit codes" "no rows match"; do
  expect_grep "compare --help: $w" "$w" ch.txt
done
finish
