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
"$KGATE" compare old.json new.json --html --out slower.html; check "compare --html exits 1 too" 1 $?
expect_grep "compare --html: a change chart per baseline" "change vs ag_gemm.cpu_blocked per row" slower.html
expect_grep "compare --html: the old and new ratios" "ratio vs ag_gemm.cpu_blocked per row, old" slower.html
expect_grep "compare --html: the change coloured by its class" 'data-row="x" data-class="SLOWER"' slower.html
expect_grep "compare --html: the tables follow" "only in old: <code>only-big</code>" slower.html
"$KGATE" compare old.json new.json --html --json >/dev/null 2>both.txt; check "compare: --html and --json refused" 2 $?
expect_grep "compare: says to choose" "choose one" both.txt
"$KGATE" compare new.json old.json >faster.md; check "compare: FASTER exits 0" 0 $?
expect_grep "compare: x is FASTER" "\*\*FASTER\*\*" faster.md
expect_grep "compare: row only in new" "only in new: \`only-big\`" faster.md
# No pair in common: exit 2.
"$KGATE" compare old.json ssu.json >/dev/null 2>nomatch.txt; check "compare: no rows match" 2 $?
expect_grep "compare: says so" "no rows match" nomatch.txt
"$KGATE" compare old.json new.json --threshold 1.5 >/dev/null 2>&1; check "compare: threshold out of range" 2 $?
"$KGATE" compare old.json new.json --margin 0 >/dev/null 2>&1; check "compare: margin out of range" 2 $?
"$KGATE" compare old.json new.json --run-noise -1 >/dev/null 2>&1; check "compare: run noise out of range" 2 $?
# SAME is an equivalence test against the stated margin, with the stated run-to-run noise, both
# recorded: a receipt against itself with no run noise and a wide margin is SAME on every pair whose
# 90% change interval lies within the margin (on a loaded CPU a row's interval may not: then
# UNRESOLVED), never FASTER or SLOWER; with a run noise far beyond the margin, UNRESOLVED on every
# pair (exit 0, or 1 with --fail-on-unresolved).
"$KGATE" compare ssu.json ssu.json --run-noise 0 --margin 0.9 --json >aa.json; check "compare R R, margin 0.9" 0 $?
python3 - <<'PY'
import json
j = json.load(open("aa.json"))
assert j["margin"] == 0.9 and j["run_noise"] == 0 and j["equivalence_level"] == 0.9, j
assert len(j["pairs"]) == 4, len(j["pairs"])
for p in j["pairs"]:
    e = p["equivalence_ci"]
    within = e["lo"] >= 1 / 1.9 and e["hi"] <= 1.9
    assert p["change"] == 1 and p["class"] == ("SAME" if within else "UNRESOLVED"), p
print("ok: classes", j["classes"])
PY
check "compare R R: SAME exactly where the equivalence interval lies within the margin, the rule recorded" 0 $?
"$KGATE" compare ssu.json ssu.json --run-noise 0.5 --margin 0.01 --json >un.json; check "UNRESOLVED alone exits 0" 0 $?
python3 -c "import json; assert json.load(open('un.json'))['classes']=={'UNRESOLVED': 4}" 2>/dev/null
check "compare R R: a run noise beyond the margin leaves every pair UNRESOLVED" 0 $?
"$KGATE" compare ssu.json ssu.json --run-noise 0.5 --margin 0.01 --fail-on-unresolved >/dev/null
check "compare --fail-on-unresolved: exit 1 on an UNRESOLVED pair" 1 $?
# --help answers formats, ratio direction, the interval, the classes and the exit codes.
"$KGATE" report --help >rh.txt; check "report --help" 0 $?
for w in "md:" "html:" "json:" "csv:" "wide:" "baseline median / candidate median" "bootstrap" "Exit codes"; do
  expect_grep "report --help: $w" "$w" rh.txt
done
"$KGATE" compare --help >ch.txt; check "compare --help" 0 $?
for w in FASTER SLOWER SAME UNRESOLVED "quadrature" "baseline median / candidate median" "Exit codes" "no rows match"; do
  expect_grep "compare --help: $w" "$w" ch.txt
done
# rerun: the recorded campaign again (its table, rows, arms, policy and protocol), a fresh receipt
# beside the old one, and the compare old -> new; --out-dir keeps the file name, --replace writes over it.
"$KGATE" rerun ssu.json >rerun.md 2>rerun.err; check "rerun" 0 $?
[ -f ssu.rerun.json ]; check "rerun: ssu.rerun.json beside ssu.json" 0 $?
expect_grep "rerun: prints the compare" "change = new ratio / old ratio" rerun.md
expect_grep "rerun: says what it re-runs" "\[1/1\] ssu.json -> ssu.rerun.json" rerun.err
python3 - ssu.json ssu.rerun.json <<'PY'
import json, sys
a, b = (json.load(open(p))["body"]["predicate"] for p in sys.argv[1:])
for k in ("cases", "policy"):
    assert a[k] == b[k], k
for k in ("groups", "blocks", "m", "seed", "warmup_min_calls", "warmup_min_us", "isolate", "cold_l2"):
    assert a["protocol"][k] == b["protocol"][k], k
assert [(x["name"], x["role"]) for x in a["arms"]] == [(x["name"], x["role"]) for x in b["arms"]]
PY
check "rerun: the same campaign (table, policy, protocol, arms)" 0 $?
"$KGATE" rerun ssu.json >/dev/null 2>exists.txt; check "rerun: an existing receipt is not overwritten" 2 $?
mkdir -p again
"$KGATE" rerun ssu.json old.json --out-dir again --quiet >/dev/null; check "rerun --out-dir: two receipts" 0 $?
[ -f again/ssu.json ] && [ -f again/old.json ]; check "rerun --out-dir: under their own names" 0 $?
"$KGATE" rerun again/ssu.json --replace --quiet --json >replace.json; check "rerun --replace" 0 $?
python3 -c "import json; j=json.load(open('replace.json')); assert j[0]['rerun']=='again/ssu.json' and j[0]['compare']['pairs']" 2>/dev/null
check "rerun --json: the new receipt and its compare" 0 $?
[ "$(ls again/ssu.*.samples.json | wc -l)" -eq 1 ]; check "rerun --replace: the old sidecar goes" 0 $?
"$KGATE" audit again/ssu.json >/dev/null; check "rerun --replace: the new receipt audits" 0 $?
cp ssu.json bad.json && sed -i 's/"groups":2/"groups":3/' bad.json
"$KGATE" rerun bad.json ssu.json --out-dir bad >/dev/null 2>bad.txt; check "rerun: a receipt that fails its audit stops all" 1 $?
[ ! -d bad ] || [ -z "$(ls bad)" ]; check "rerun: nothing run before every receipt is checked" 0 $?
"$KGATE" rerun --help >rrh.txt; check "rerun --help" 0 $?
for w in "--peers" "--out-dir" "--replace" "compare" "Exit codes"; do expect_grep "rerun --help: $w" "$w" rrh.txt; done
finish
