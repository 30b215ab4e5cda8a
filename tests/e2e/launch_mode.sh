#!/usr/bin/env bash
# run --launch direct|graph on the CPU backend: graph (CUDA graphs) and an unknown mode are refused
# before any work (exit 2, nothing written); a run records protocol.launch "direct", which rerun
# reproduces; the md report of a direct run does not claim graph replays.
source "$(dirname "$0")/lib.sh"
cd "$SRC"
args=(--backend cpu --quiet --groups 2 --m 1 --warmup-calls 1 --warmup-us 0 --rows 'ag-cpu-w2-m32*'
  --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked)
"$KGATE" run "${args[@]}" --launch graph --out "$WORK/g.json" >/dev/null 2>"$WORK/g.err"
check "--launch graph on the CPU backend: usage error" 2 $?
expect_grep "the refusal names the flag and the backend" "^kgate: error: --launch graph: needs the cuda backend (this run's is cpu" "$WORK/g.err"
[ ! -e "$WORK/g.json" ] && [ ! -e "$WORK/g.json.journal" ]; check "nothing written" 0 $?
"$KGATE" run "${args[@]}" --launch replay --out "$WORK/u.json" >/dev/null 2>"$WORK/u.err"
check "--launch replay: usage error" 2 $?
expect_grep "the unknown mode is named" "launch" "$WORK/u.err"
[ ! -e "$WORK/u.json" ]; check "nothing written" 0 $?
"$KGATE" run "${args[@]}" --out "$WORK/d.json" >/dev/null 2>&1
check "default run" 0 $?
"$KGATE" run "${args[@]}" --launch direct --out "$WORK/d2.json" >/dev/null 2>&1
check "--launch direct" 0 $?
"$KGATE" rerun "$WORK/d.json" --out-dir "$WORK/re" --quiet >/dev/null 2>&1
check "rerun" 0 $?
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
for name in ("d.json", "d2.json", "re/d.json"):
    launch = json.load(open(f"{w}/{name}"))["body"]["predicate"]["protocol"].get("launch")
    assert launch == "direct", (name, launch)
print("ok")
PY
check "protocol.launch is direct in the run, --launch direct and the rerun" 0 $?
"$KGATE" gate "$WORK/d.json" --policy correct --against-tree . >"$WORK/gate.txt"
check "gate --against-tree: the recorded launch is the tree's protocol" 0 $?
"$KGATE" report "$WORK/d.json" --format md >"$WORK/d.md"
! grep -q "launch graph" "$WORK/d.md"; check "a direct run's report claims no graph replays" 0 $?
finish
