#!/usr/bin/env bash
# --isolate on the GPU: calib.fault traps on every row, so every row fails with the CUDA error
# recorded; each unit has a fresh process and context, so the campaign still runs every row,
# completes (exit 1: the policy fails) and its receipt audits.
source "$(dirname "$0")/lib_gpu.sh"
cd "$WORK"
"$KGATE" run --backend cuda --quiet --isolate --cases "$SRC/cases/calib.json" \
  --rows 'spin-10us,spin-20us,spin-50us' --candidate calib.fault --baseline calib.spin --groups 1 --m 1 \
  --out r.json >out.txt 2>err.txt
check "campaign with a trapping arm completes, policy fails" 1 $?
"$KGATE" audit r.json >/dev/null; check "receipt audits" 0 $?
python3 - <<'PY'
import json
rows = {x["id"]: x for x in json.load(open("r.json"))["body"]["predicate"]["rows"]}
assert sorted(rows) == ["spin-10us", "spin-20us", "spin-50us"], sorted(rows)
for i, row in rows.items():
    assert row["disposition"] == "failed", (i, row["disposition"])
    print(i, "recorded error:", row["error"])
    assert "CUDA error" in row["error"], (i, row["error"])
print("ok")
PY
check "every row failed, each with its CUDA error recorded" 0 $?
finish
