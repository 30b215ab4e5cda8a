#!/usr/bin/env bash
# --isolate on the GPU: a row whose kernel traps fails with the CUDA error recorded; the rows
# after it still run (each unit has a fresh process and context).
source "$(dirname "$0")/lib_gpu.sh"
cd "$WORK"
KGATE_TEST_DEVICE_FAULT_ROW=spin-20us "$KGATE" run --backend cuda --quiet --isolate --cases "$SRC/cases/calib.json" \
  --rows 'spin-10us,spin-20us,spin-50us' --candidate calib.spin --baseline calib.spin_twin --groups 1 --m 1 \
  --out r.json >out.txt 2>err.txt
check "campaign with a trapping row completes, policy fails" 1 $?
"$KGATE" audit r.json >/dev/null; check "receipt audits" 0 $?
python3 - <<'PY'
import json
rows = {x["id"]: x for x in json.load(open("r.json"))["body"]["predicate"]["rows"]}
assert rows["spin-20us"]["disposition"] == "failed", rows["spin-20us"]
print("recorded error:", rows["spin-20us"]["error"])
assert "CUDA error" in rows["spin-20us"]["error"], rows["spin-20us"]["error"]
for i in ("spin-10us", "spin-50us"):
    assert rows[i]["disposition"] == "passed", (i, rows[i]["disposition"], rows[i]["error"])
print("ok")
PY
check "only the trapping row failed, with the CUDA error recorded" 0 $?
finish
