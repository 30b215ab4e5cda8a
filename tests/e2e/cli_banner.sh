#!/usr/bin/env bash
# Device banners only where a device is used: a run with a bad flag or file (single run or any
# suite entry) prints the error line and nothing else, under --backend auto too; list, audit,
# gate, keygen, report and compare never mention a device; env and run say which backend they
# use once, and only after every flag and file passed.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
tiny=(--quiet --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --rows 'ssu-cpu-h8g1-b1*')
arms=(--candidate ssu.cpu_eigen --baseline ssu.cpu_scalar)
only_error() {  # only_error name args...: exit 2, stderr is exactly one "kgate: error:" line
  local name=$1
  shift
  "$KGATE" "$@" >"$name.out" 2>"$name.err"
  check "$name exits 2" 2 $?
  [ "$(wc -l <"$name.err")" -eq 1 ] && grep -q "^kgate: error: " "$name.err"
  check "$name: stderr is the error line alone ($(head -c 300 "$name.err"))" 0 $?
  [ ! -s "$name.out" ]; check "$name: nothing on stdout" 0 $?
}
for backend in auto cpu; do
  b=(--backend $backend)
  only_error "bad_arm_$backend" run "${b[@]}" --cases "$SRC/cases/cpu/ssu.json" --candidate ssu.cpu_eigne --baseline ssu.cpu_scalar --out r.json
  only_error "bad_table_$backend" run "${b[@]}" --cases nowhere.json "${arms[@]}" --out r.json
  only_error "bad_policy_$backend" run "${b[@]}" --cases "$SRC/cases/cpu/ssu.json" "${arms[@]}" --policy strcit --out r.json
  only_error "bad_groups_$backend" run "${b[@]}" --cases "$SRC/cases/cpu/ssu.json" "${arms[@]}" --groups 0 --out r.json
  only_error "bad_sign_$backend" run "${b[@]}" --cases "$SRC/cases/cpu/ssu.json" "${arms[@]}" --sign none.key --out r.json
  only_error "bad_flag_$backend" run "${b[@]}" --cases "$SRC/cases/cpu/ssu.json" "${arms[@]}" --grups 2
  only_error "isolate_bad_arm_$backend" run "${b[@]}" --isolate --cases "$SRC/cases/cpu/ssu.json" --candidate ssu.nope --baseline ssu.cpu_scalar
  only_error "flags_need_cases_$backend" run "${b[@]}" --candidate ssu.cpu_eigen
  # A suite whose second entry is bad: nothing runs, nothing is announced.
  SSU="$SRC/cases/cpu/ssu.json" python3 -c '
import json, os
entry = lambda base, out: {"cases": os.environ["SSU"], "candidate": "ssu.cpu_eigen", "baseline": base, "out": out}
suite = [entry("ssu.cpu_scalar", "a.json"), entry("ssu.cpu_scalr", "b.json")]
json.dump({"cpu": suite, "cuda": suite}, open("suite.json", "w"))'
  only_error "bad_suite_entry_$backend" run "${b[@]}" --suite suite.json --out-dir so
  [ ! -e so ]; check "bad suite entry ($backend): nothing written" 0 $?
done
expect_grep "the suite error names the entry and the arm" "suite.json: '[a-z]*' entry 1: --baseline: unknown implementation 'ssu.cpu_scalr'; did you mean 'ssu.cpu_scalar'?" bad_suite_entry_cpu.err
# A good run announces its backend once (auto without a GPU: the CPU fallback line), after preflight.
"$KGATE" run --backend cpu --cases "$SRC/cases/cpu/ssu.json" "${arms[@]}" "${tiny[@]}" --out r.json >/dev/null 2>run.err
check "tiny run" 0 $?
[ "$(grep -c "using the CPU backend" run.err)" -eq 0 ]; check "--backend cpu: no fallback banner" 0 $?
"$KGATE" run --backend cpu --cases "$SRC/cases/cpu/ssu.json" "${arms[@]}" "${tiny[@]}" --out q.json >q.out 2>q.err
check "quiet run" 0 $?
[ ! -s q.out ] && [ ! -s q.err ]; check "--quiet: nothing on stdout or stderr ($(head -c 200 q.out q.err))" 0 $?
"$KGATE" env >/dev/null 2>env.err; check "env" 0 $?
[ "$(grep -c "backend" env.err)" -le 1 ]; check "env: at most one backend line" 0 $?
quiet() {  # quiet name rc args...: the expected exit code and nothing about a device on stderr
  local name=$1 rc=$2
  shift 2
  "$KGATE" "$@" >"$name.out" 2>"$name.err"
  check "$name exits $rc" "$rc" $?
  ! grep -qi "gpu\|backend\|device" "$name.err"; check "$name: no device banner" 0 $?
}
quiet list 0 list
quiet audit 0 audit r.json
quiet gate 0 gate r.json --policy correct
quiet keygen 0 keygen k
quiet report 0 report r.json
quiet compare 0 compare r.json r.json
quiet audit_missing 1 audit missing.json
quiet gate_bad_policy 2 gate r.json --policy strcit
[ "$(wc -l <gate_bad_policy.err)" -eq 1 ]; check "gate bad policy: one line" 0 $?
finish
