#!/usr/bin/env bash
# The timer on the calibration family: a short A/A run, audited; cupti vs events both work.
source "$(dirname "$0")/lib_gpu.sh"
cd "$WORK"
"$KGATE" run --backend cuda --quiet --cases "$SRC/cases/calib.json" --rows 'spin-10us,spin-100us,overlap-200us*,copy-16MiB' \
  --candidate calib.spin --baseline calib.spin_twin --groups 2 --m 2 --out c.json >/dev/null 2>err.txt
check "calib A/A run" 0 $?
"$KGATE" audit c.json >/dev/null; check "audit" 0 $?
python3 - <<'PY'
import json
r = json.load(open("c.json"))["body"]["predicate"]
assert r["timer"] in ("cupti", "events"), r["timer"]
for row in r["rows"]:
    assert row["disposition"] == "passed", row["id"]
    if r["timer"] == "cupti" and row["id"].startswith("overlap"):
        sig = row["signatures"]["calib.spin"]
        assert sig["L"] == 3 and sig["consistent"], sig
print("ok")
PY
check "overlap rows launch 3 kernels each call" 0 $?
"$KGATE" run --backend cuda --quiet --timer events --cases "$SRC/cases/calib.json" --rows 'spin-10us' \
  --candidate calib.spin --baseline calib.spin_twin --groups 1 --m 1 --out e.json >/dev/null 2>&1
check "events timer" 0 $?
finish
