#!/usr/bin/env bash
# The timer on the calibration family: a short A/A run, audited; cupti vs events both work.
source "$(dirname "$0")/lib_gpu.sh"
cd "$WORK"
"$KGATE" run --backend cuda --quiet --cases "$SRC/cases/calib.json" --rows 'spin-10us,spin-100us,overlap-200us*,copy-16MiB' \
  --candidate calib.spin --baseline calib.spin_twin --groups 2 --out c.json >/dev/null 2>err.txt
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
# The interval on the device: A/A is not resolved, a spin 2 % longer is (default protocol).
"$KGATE" run --backend cuda --quiet --cases "$SRC/cases/calib.json" --rows 'spin-20us,spin-500us' --candidate calib.spin \
  --baseline calib.spin_twin,calib.spin_longer --policy "$SRC/cases/policies/calib_aa_longer.json" --out s.json >/dev/null 2>&1
check "A/A and 2 % longer campaign passes its policy" 0 $?
python3 - <<'PY'
import json
for row in json.load(open("s.json"))["body"]["predicate"]["rows"]:
    v = row["verdicts"]["raw"]["by_baseline"]
    assert v["calib.spin_twin"]["strict"] is False, (row["id"], row["pairs"][0])
    assert v["calib.spin_longer"]["strict"] is True, (row["id"], row["pairs"][1])
print("ok")
PY
check "A/A never strict, 2 % longer strict" 0 $?
"$KGATE" run --backend cuda --quiet --timer events --cases "$SRC/cases/calib.json" --rows 'spin-10us' \
  --candidate calib.spin --baseline calib.spin_twin --groups 1 --m 1 --out e.json >/dev/null 2>&1
check "events timer" 0 $?
finish
