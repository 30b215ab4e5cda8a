#!/usr/bin/env bash
# --isolate on the CPU backend: every unit runs in a child process and the receipt is the same
# kind of receipt (the crash path is proven by the unit tests, with a fault-injecting backend,
# and on the GPU by tests/gpu/isolate_fault.sh with a kernel that traps).
source "$(dirname "$0")/lib.sh"
cd "$WORK"
"$KGATE" run --backend cpu --quiet --isolate --cases "$SRC/cases/cpu/ag_gemm.json" --candidate ag_gemm.cpu_eigen \
  --baseline ag_gemm.cpu_blocked --groups 2 --m 1 --out ok.json >out.txt 2>&1
check "isolated run without faults passes" 0 $?
"$KGATE" audit ok.json >/dev/null; check "audits" 0 $?
python3 - <<'PY'
import json
r = json.load(open("ok.json"))["body"]["predicate"]
assert r["protocol"]["isolate"] is True
assert all(x["disposition"] == "passed" for x in r["rows"]), [(x["id"], x["disposition"]) for x in r["rows"]]
print("ok")
PY
check "isolate recorded, every row passed" 0 $?
finish
