#!/usr/bin/env bash
# A CLI that fits the hand: --version names the build; a mistyped subcommand, flag, arm, case
# table or gate is exit 2 with one line naming the nearest known names ("did you mean").
source "$(dirname "$0")/lib.sh"
cd "$WORK"
"$KGATE" --version >v.txt 2>v.err; check "--version" 0 $?
expect_grep "--version: version" "^kgate [0-9][0-9.]*$" v.txt
expect_grep "--version: git commit" "^git commit: \([0-9a-f]\{40\}\|unknown\)" v.txt
expect_grep "--version: build type" "^build type: " v.txt
expect_grep "--version: compiler" "^compiler: [A-Za-z]" v.txt
expect_grep "--version: CUDA on/off" "^CUDA: \(off\|on (nvcc [0-9.]*, architectures [0-9a-z,-]*)\)$" v.txt
expect_grep "--version: sanitizers" "^sanitizers: " v.txt
[ ! -s v.err ]; check "--version writes nothing on stderr" 0 $?
arms=(--candidate ssu.cpu_eigen --baseline ssu.cpu_scalar)
base=(--backend cpu --out r.json --cases "$SRC/cases/cpu/ssu.json")
try() {  # try name pattern args...: exit 2, exactly one line on stderr holding pattern, nothing written
  local name=$1 pat=$2
  shift 2
  "$KGATE" "$@" >"$name.out" 2>"$name.err"
  check "$name exits 2" 2 $?
  [ "$(wc -l <"$name.err")" -eq 1 ]; check "$name: one line on stderr" 0 $?
  expect_grep "$name suggests" "$pat" "$name.err"
  [ ! -s "$name.out" ] && [ ! -e r.json ] && [ ! -e out ]; check "$name: nothing on stdout, nothing written" 0 $?
}
try subcommand "unknown subcommand 'lst'; did you mean 'list'?" lst
try subcommand2 "unknown subcommand 'gaet'; did you mean 'gate'?" gaet
try top_flag "unknown flag '--versoin'; did you mean '--version'?" --versoin
try flag "run: unknown flag '--candiate'; did you mean '--candidate'?" run --candiate ssu.cpu_eigen
try flag_eq "run: unknown flag '--basline'; did you mean '--baseline'?" run --cases x --basline=ssu.cpu_scalar
try gate_flag "gate: unknown flag '--polcy'; did you mean '--policy'?" gate r.json --polcy correct
try unknown_flag_no_hint "run: unknown flag '--bogus'" run --bogus
try no_subcommand "a subcommand is required: list, env, run" 
try missing_positional "gate: receipt is required" gate --policy correct
try backend_choice "run: --backend: gpu not in {auto,cpu,cuda}" run --backend gpu
try candidate "--candidate: unknown implementation 'ssu.cpu_eigne'; did you mean 'ssu.cpu_eigen'?" \
  run "${base[@]}" --candidate ssu.cpu_eigne --baseline ssu.cpu_scalar
try baseline "--baseline: unknown implementation 'ssu.cpu_scalr'; did you mean 'ssu.cpu_scalar'?" \
  run "${base[@]}" --candidate ssu.cpu_eigen --baseline ssu.cpu_scalr
mkdir -p cases/cpu && cp "$SRC/cases/cpu/ssu.json" cases/cpu/
try table "--cases cases/cpu/ssu.jsn: no such file; did you mean 'cases/cpu/ssu.json'" \
  run --backend cpu --out r.json --cases cases/cpu/ssu.jsn "${arms[@]}"
try table_dir "--cases cases/cpuu/ssu.json: no such file; did you mean 'cases/cpu/ssu.json'" \
  run --backend cpu --out r.json --cases cases/cpuu/ssu.json "${arms[@]}"
try table_srcdir "--cases nowhere/ag_gemm.jsn: no such file; did you mean '.*cases/cpu/ag_gemm.json'?" \
  run --backend cpu --out r.json --cases nowhere/ag_gemm.jsn "${arms[@]}"
try gate_name "--policy: unknown gate 'strcit'; did you mean 'strict'?" run "${base[@]}" "${arms[@]}" --policy correct,strcit
try gate_name_value "--policy: unknown gate 'limt'; did you mean 'limit'?" run "${base[@]}" "${arms[@]}" --policy 'limt(0.1)'
try rows "--rows 'ssu-cpu-h8g1-b1-bf61' matches no row; did you mean 'ssu-cpu-h8g1-b1-bf16'?" \
  run "${base[@]}" "${arms[@]}" --rows ssu-cpu-h8g1-b1-bf61
finish
