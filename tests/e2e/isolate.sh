#!/usr/bin/env bash
# --isolate: a row whose unit dies (SIGSEGV, as a faulting kernel would) fails alone; the campaign
# goes on, the receipt is written and audits, the failure is recorded with its cause.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
KGATE_TEST_CRASH_ROW=ssu-cpu-h16g2-b8-bf16-pad "$KGATE" run --backend cpu --quiet --isolate \
  --cases "$SRC/cases/cpu/ssu.json" --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar \
  --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --out r.json >out.txt 2>err.txt
check "campaign with a crashing row completes, policy fails" 1 $?
"$KGATE" audit r.json >/dev/null; check "receipt audits" 0 $?
python3 - <<'PY'
import json
r = json.load(open("r.json"))["body"]["predicate"]
assert r["protocol"]["isolate"] is True
rows = {x["id"]: x for x in r["rows"]}
bad = rows["ssu-cpu-h16g2-b8-bf16-pad"]
assert bad["disposition"] == "failed", bad["disposition"]
assert "signal 11" in bad["error"], bad["error"]
others = [x for i, x in rows.items() if i != "ssu-cpu-h16g2-b8-bf16-pad"]
assert all(x["disposition"] == "passed" for x in others), [(x["id"], x["disposition"], x["error"]) for x in others]
print("ok")
PY
check "only the crashing row failed, with its signal recorded" 0 $?
"$KGATE" run --backend cpu --quiet --isolate --cases "$SRC/cases/cpu/ag_gemm.json" --candidate ag_gemm.cpu_eigen \
  --baseline ag_gemm.cpu_blocked --groups 2 --m 1 --out ok.json >/dev/null 2>&1
check "isolated run without faults passes" 0 $?
"$KGATE" audit ok.json >/dev/null; check "audits" 0 $?
finish
