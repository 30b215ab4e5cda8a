#!/usr/bin/env bash
# Bad flags, paths and too-deep JSON: exit 2 (1 for audit), one bounded line naming the flag or
# file, and nothing started: no journal, no receipt, no timing.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
python3 - <<'PY'
import json
ok = {"batch": 1, "nheads": 2, "ngroups": 1, "pool_slots": 2, "state_dtype": "fp32"}
json.dump({"table": "t", "family": "ssu", "rows": [{"id": "r", "params": ok}]}, open("t.json", "w"))
open("deep_obj.json", "w").write('{"a":' * 100000 + '1' + '}' * 100000)
open("deep_arr.json", "w").write('[' * 1000000 + ']' * 1000000)
PY
base=(run --backend cpu --quiet --cases t.json --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar)
fast=(--groups 1 --m 1 --warmup-calls 1 --warmup-us 0)
try() {  # try name pattern extra-args...: exit 2, one line, pattern in it, nothing written
  local name=$1 pat=$2
  shift 2
  rm -f r.json r.json.journal r.samples.json
  local out=(--out r.json)
  case " $* " in *" --out "*) out=() ;; esac
  "$KGATE" "${base[@]}" "${out[@]}" "$@" 2>"$name.err" >/dev/null
  check "$name exits 2" 2 $?
  [ "$(wc -l <"$name.err")" -eq 1 ] && [ "$(wc -c <"$name.err")" -lt 400 ]; check "$name: one short line" 0 $?
  expect_grep "$name message" "$pat" "$name.err"
  [ ! -e r.json ] && [ ! -e r.json.journal ]; check "$name: no journal or receipt" 0 $?
}
try warmup_nan "--warmup-us" --warmup-us nan
try warmup_inf "--warmup-us" --warmup-us inf
try warmup_neg "--warmup-us" --warmup-us -1
try warmup_huge "--warmup-us" --warmup-us 1e10
try warmup_calls "--warmup-calls" --warmup-calls 2000000
try groups_huge "--groups" --groups 2147483647
try blocks_odd "--blocks" --blocks 3
try m_huge "--m" --m 100000
try product "samples per arm" --groups 1000 --blocks 1000 --m 10000
try limit_nan "limit(nan)" --policy 'limit(nan)'
try drift_inf "drift(inf)" --policy 'correct,drift(inf)'
try limit_neg "limit(-1)" --policy 'limit(-1)'
echo '{"gates": ["limit"], "limit": 1e400}' > huge_policy.json
try policy_file_overflow "huge_policy.json: malformed JSON" --policy huge_policy.json
# The rank runners' flags (this test's table is ssu: no ranks; the CPU backend plays ranks itself).
try simulate_cpu "--simulate-ranks: needs the cuda backend" --simulate-ranks 4
try simulate_one "--simulate-ranks: W must be in" --simulate-ranks 1
try gpus_and_rdv "--gpus and --rendezvous: one runner" --gpus 2 --rendezvous rdv
try gpus_simulate "--simulate-ranks: plays ranks on one GPU" --gpus 2 --simulate-ranks 2
try gpus_cpu "--gpus/--rendezvous: need the cuda backend" --gpus 2
try rank_timeout "--rank-timeout" --gpus 2 --rank-timeout 0
long=$(head -c 100000 /dev/zero | tr '\0' 'x')
try policy_long "--policy: 100000 bytes" --policy "$long"
try out_long "--out: path of 100005 bytes" --out "$long.json"
mkdir adir
try out_dir "is a directory" --out adir
# A non-regular target (as root, --out /dev/null was replaced by a regular file). A FIFO in the
# scratch directory stands in for /dev/null: running this test on a binary with the bug must
# not break the machine's /dev/null.
mkfifo fifo
try out_fifo "not a regular file" --out fifo
[ -p fifo ]; check "the FIFO is still a FIFO" 0 $?
echo plain > afile
try out_under_file "afile is not a directory" --out afile/sub/r.json
try sign_missing "no-such.key" --sign no-such.key
echo "not a key" > bad.key
try sign_garbage "not an Ed25519 private key" --sign bad.key
try sign_empty "an empty key path" --sign ""
try policy_commas "an empty gate name" --policy ","
try deep_policy "deep_obj.json: JSON nested deeper than 64 levels" --policy deep_obj.json
# Too-deep case tables: exit 2 with a clear message, not a stack overflow.
for d in deep_obj deep_arr; do
  "$KGATE" run --backend cpu --quiet --cases $d.json --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --out r.json 2>$d.err >/dev/null
  check "$d table exits 2" 2 $?
  expect_grep "$d table: depth named" "$d.json: JSON nested deeper than 64 levels" $d.err
done
# Suite files: a non-string policy names file, entry and field; a deep suite file is an input error.
printf '{"cpu": [{"cases": "t.json", "candidate": "ssu.cpu_eigen", "baseline": "ssu.cpu_scalar", "out": "s.json", "policy": 5}]}' > suite.json
"$KGATE" run --backend cpu --quiet --suite suite.json --out-dir so 2>suite.err >/dev/null; check "suite policy 5 exits 2" 2 $?
expect_grep "suite message names entry and field" "suite.json: 'cpu' entry 0: field 'policy'" suite.err
[ ! -e so ]; check "suite: nothing written" 0 $?
"$KGATE" run --backend cpu --quiet --suite deep_arr.json 2>dsuite.err >/dev/null; check "deep suite exits 2" 2 $?
expect_grep "deep suite message" "nested deeper than 64" dsuite.err
# Receipts: a real one, then too-deep ones for audit, report and compare (exit 1, never a crash).
"$KGATE" "${base[@]}" "${fast[@]}" --out r.json >/dev/null 2>&1; check "tiny run" 0 $?
"$KGATE" report r.json --out fifo 2>rep.err; check "report --out FIFO exits 2" 2 $?
expect_grep "report --out FIFO message" "not a regular file" rep.err
[ -p fifo ]; check "report left the FIFO a FIFO" 0 $?
"$KGATE" report r.json --out afile/sub/r.md 2>rep2.err; check "report --out under a file exits 2" 2 $?
expect_grep "report --out names the flag" "^kgate: error: --out" rep2.err
"$KGATE" report r.json --out adir 2>rep3.err; check "report --out a directory exits 2" 2 $?
"$KGATE" report r.json --out "$long.md" 2>rep4.err; check "report --out 100 kB exits 2" 2 $?
"$KGATE" carryover r.json --out fifo 2>co.err; check "carryover --out FIFO exits 2" 2 $?
expect_grep "carryover --out FIFO message" "not a regular file" co.err
"$KGATE" carryover r.json --json > co.json; check "carryover of a CPU receipt" 0 $?
python3 -c "import json,sys; j=json.load(open('co.json')); assert j['schema']=='kgate.carryover/1' and j['pairs'], j" 
check "carryover --json: a document with the pairs" 0 $?
for d in deep_obj deep_arr; do
  "$KGATE" audit $d.json >$d.audit 2>&1; check "audit $d exits 1" 1 $?
  expect_grep "audit $d names the depth" "not valid JSON: nested deeper than 64 levels" $d.audit
  "$KGATE" report $d.json >/dev/null 2>&1; check "report $d exits 1" 1 $?
  "$KGATE" carryover $d.json >/dev/null 2>&1; check "carryover $d exits 1" 1 $?
  "$KGATE" compare r.json $d.json >/dev/null 2>&1; check "compare $d exits 1" 1 $?
  "$KGATE" gate $d.json --policy correct >/dev/null 2>&1; check "gate $d exits 1" 1 $?
done
finish
