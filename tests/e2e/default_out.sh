#!/usr/bin/env bash
# Receipt names: without --out a run writes <out-dir>/<table>.<candidate>.vs.<baseline>[+...]
# .<commit7>.json (runs of other arms or tables never collide); an existing receipt is never
# overwritten without --force (exit 2, naming the file and --force, the receipt untouched);
# --resume is no overwrite; suite entries keep their names under the same rule.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
tiny=(--backend cpu --quiet --groups 1 --m 1 --warmup-calls 1 --warmup-us 0)
commit=$("$KGATE" --version | sed -n 's/^git commit: //p')
c7=nogit
[[ "$commit" =~ ^[0-9a-f]{7} ]] && c7=${commit:0:7}
ag=(--cases "$SRC/cases/cpu/ag_gemm.json" --rows 'ag-cpu-w2-m32*')
# Not quiet: the summary line names the receipt.
"$KGATE" run --backend cpu --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 "${ag[@]}" --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked >o1.txt 2>&1
check "default-named run" 0 $?
name="out/ag_gemm_cpu.ag_gemm.cpu_eigen.vs.ag_gemm.cpu_blocked.$c7.json"
[ -f "$name" ]; check "receipt at $name" 0 $?
expect_grep "the summary names it" "^$name: " o1.txt
"$KGATE" audit "$name" >/dev/null; check "it audits" 0 $?
# The reversed roles get a name of their own (several baselines: unit test DefaultReceiptName).
"$KGATE" run "${tiny[@]}" "${ag[@]}" --candidate ag_gemm.cpu_blocked --baseline ag_gemm.cpu_eigen --out-dir o2 >/dev/null 2>&1
check "reversed roles" 0 $?
[ -f "o2/ag_gemm_cpu.ag_gemm.cpu_blocked.vs.ag_gemm.cpu_eigen.$c7.json" ]; check "reversed roles: its own name" 0 $?
# No overwrite without --force.
before=$(sha256sum "$name")
"$KGATE" run "${tiny[@]}" "${ag[@]}" --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked >again.out 2>again.err
check "a second run onto the receipt is refused" 2 $?
[ "$(wc -l <again.err)" -eq 1 ]; check "one line" 0 $?
expect_grep "it names the file and --force" "^kgate: error: --out $name: a receipt exists there; pass --force to overwrite it" again.err
[ "$before" = "$(sha256sum "$name")" ] && [ ! -e "$name.journal" ]; check "the receipt is untouched, no journal" 0 $?
"$KGATE" run "${tiny[@]}" "${ag[@]}" --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out "$name" >/dev/null 2>&1
check "an explicit --out is held to the same rule" 2 $?
"$KGATE" run "${tiny[@]}" "${ag[@]}" --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --seed 7 --force >/dev/null 2>&1
check "--force overwrites" 0 $?
[ "$before" != "$(sha256sum "$name")" ]; check "the receipt was replaced" 0 $?
"$KGATE" audit "$name" >/dev/null; check "the replaced receipt audits" 0 $?
[ "$(ls out/*.samples.json | wc -l)" -eq 1 ]; check "one sidecar beside it" 0 $?
# Suites: explicit names, same rule; two entries may not share a receipt.
"$KGATE" run "${tiny[@]}" --out-dir s >/dev/null 2>&1; check "default suite" 0 $?
[ -f s/ssu_cpu.json ] && [ -f s/ag_gemm_cpu.json ]; check "suite entries keep their names" 0 $?
"$KGATE" run "${tiny[@]}" --out-dir s >/dev/null 2>suite.err; check "the suite again is refused" 2 $?
expect_grep "the refusal names the entry, the file and --force" "entry 0: --out s/ssu_cpu.json: a receipt exists there; pass --force" suite.err
"$KGATE" run "${tiny[@]}" --out-dir s --force >/dev/null 2>&1; check "the suite again with --force" 0 $?
printf '{"cpu": [{"cases": "cases/cpu/ssu.json", "candidate": "ssu.cpu_eigen", "baseline": "ssu.cpu_scalar", "out": "x.json"},
 {"cases": "cases/cpu/ag_gemm.json", "candidate": "ag_gemm.cpu_eigen", "baseline": "ag_gemm.cpu_blocked", "out": "x.json"}]}' >dup.json
"$KGATE" run "${tiny[@]}" --suite dup.json --out-dir d >/dev/null 2>dup.err; check "two entries, one receipt: refused" 2 $?
expect_grep "the refusal names both entries" "entry 1: field 'out': d/x.json is entry 0's too" dup.err
[ ! -e d ]; check "nothing written" 0 $?
finish
