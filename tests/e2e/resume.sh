#!/usr/bin/env bash
# A run killed midway (SIGKILL from outside, after some units are journalled) resumes without
# losing or repeating a unit; while a run holds its journal, no second run or --resume may
# touch it.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
# About 0.4 s of warm-up per unit, so the kill lands midway through the 12 units.
args=(run --backend cpu --quiet --cases "$SRC/cases/cpu/ssu.json" --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar
      --groups 3 --blocks 2 --m 2 --warmup-calls 1 --warmup-us 200000 --out r.json)
"$KGATE" "${args[@]}" >/dev/null 2>&1 &
pid=$!
units=0
for _ in $(seq 1 600); do
  [ -f r.json.journal ] && units=$(grep -c '"kind":"unit"' r.json.journal)
  [ "$units" -ge 3 ] && break
  sleep 0.05
done
# Freeze the run where it is: it keeps its journal lock while stopped, and cannot finish the
# remaining units while the checks below start kgate twice (on a loaded 2-core machine those two
# starts can outlast the run's last nine units).
kill -STOP "$pid"
[ "$units" -ge 3 ]; check "the first run journalled 3 units within 30 s ($units)" 0 $?
"$KGATE" "${args[@]}" --resume >/dev/null 2>lock.txt; check "a --resume while the run holds the journal is refused" 2 $?
grep -q "another kgate run holds" lock.txt; check "the refusal says why" 0 $?
"$KGATE" "${args[@]}" >/dev/null 2>&1; check "a second fresh run on the same --out is refused" 2 $?
kill -9 "$pid"; wait "$pid" 2>/dev/null
[ -f r.json.journal ] && [ ! -f r.json ]; check "journal kept, no receipt yet" 0 $?
units=$(grep -c '"kind":"unit"' r.json.journal)
[ "$units" -ge 3 ] && [ "$units" -lt 12 ]; check "killed midway ($units of 12 units journalled)" 0 $?
# A torn final line (killed mid-append) is dropped on resume.
printf '{"kind":"unit","row":"ssu-cpu' >> r.json.journal
"$KGATE" "${args[@]}" >/dev/null 2>&1; check "run without --resume refuses to clobber the journal" 2 $?
"$KGATE" "${args[@]}" --seed 3 --resume >/dev/null 2>&1; check "resume with different flags is refused" 2 $?
"$KGATE" "${args[@]}" --resume >/dev/null 2>err.txt; check "resume completes" 0 $?
[ ! -f r.json.journal ]; check "journal removed after the receipt" 0 $?
"$KGATE" audit r.json >/dev/null; check "resumed receipt audits" 0 $?
UNITS="$units" python3 - <<'PY'
import json, os
r = json.load(open("r.json"))["body"]["predicate"]
assert r["run"]["resumed_units"] == int(os.environ["UNITS"]), r["run"]
assert r["run"]["units"] == 12
s = json.load(open(r["samples"]["path"]))["rows"]
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
