#!/usr/bin/env bash
# A run killed midway (SIGKILL after 4 journalled units) resumes without losing or repeating a unit.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
args=(run --backend cpu --quiet --cases "$SRC/cases/cpu/ssu.json" --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar
      --groups 3 --m 2 --warmup-calls 1 --warmup-us 0 --out r.json)
KGATE_TEST_KILL_AFTER_UNITS=4 "$KGATE" "${args[@]}" >/dev/null 2>&1
check "first run is killed" 137 $?
[ -f r.json.journal ] && [ ! -f r.json ]; check "journal kept, no receipt yet" 0 $?
units=$(grep -c '"kind":"unit"' r.json.journal)
[ "$units" -eq 4 ]; check "4 units journalled before the kill ($units)" 0 $?
# A torn final line (killed mid-append) is dropped on resume.
printf '{"kind":"unit","row":"ssu-cpu' >> r.json.journal
"$KGATE" "${args[@]}" >/dev/null 2>&1; check "run without --resume refuses to clobber the journal" 2 $?
"$KGATE" "${args[@]}" --seed 3 --resume >/dev/null 2>&1; check "resume with different flags is refused" 2 $?
"$KGATE" "${args[@]}" --resume >/dev/null 2>err.txt; check "resume completes" 0 $?
[ ! -f r.json.journal ]; check "journal removed after the receipt" 0 $?
"$KGATE" audit r.json >/dev/null; check "resumed receipt audits" 0 $?
python3 - <<'PY'
import json, sys
r = json.load(open("r.json"))["body"]["predicate"]
assert r["run"]["resumed_units"] == 4, r["run"]
assert r["run"]["units"] == 12
s = json.load(open("r.samples.json"))["rows"]
for row in r["rows"]:
    assert row["disposition"] == "passed", row["id"]
    p = s[row["id"]]["pairs"][0]
    # 3 groups; per group and arm 2 blocks x 2 letters x m=2 = 8: no unit lost, none repeated.
    assert [len(g) for g in p["baseline"]] == [8, 8, 8], p
    assert [len(g) for g in p["candidate"]] == [8, 8, 8], p
print("sample counts ok")
PY
check "every row has exactly 3 groups of samples" 0 $?
finish
