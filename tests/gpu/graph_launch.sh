#!/usr/bin/env bash
# --launch graph on the GPU: ssu.fast vs ssu.baseline on two launch-bound rows, every call a replay
# of the arm's CUDA graph. The receipt audits and records protocol.launch "graph"; every arm is
# correct; the CUPTI medians are positive and within a factor 2 of the same rows launched directly;
# rerun reproduces the mode. An arm that synchronizes its stream inside the call
# (tests/exports/sync_ssu.cu) is refused with the capture's reason, the run goes on.
source "$(dirname "$0")/lib_gpu.sh"
cd "$WORK"
rows='ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8'
common=(--backend cuda --quiet --no-peaks --cases "$SRC/cases/ssu.json" --rows "$rows" --candidate ssu.fast
  --baseline ssu.baseline --policy correct --groups 1 --m 2)
"$KGATE" run "${common[@]}" --launch graph --out g.json >/dev/null 2>err.txt
check "graph mode: every arm correct" 0 $?
"$KGATE" run "${common[@]}" --out d.json >/dev/null 2>>err.txt
check "direct mode: every arm correct" 0 $?
"$KGATE" audit g.json >/dev/null; check "the graph-mode receipt audits" 0 $?
"$KGATE" report g.json --format md >g.md; check "report" 0 $?
expect_grep "the report names the launch mode" "launch graph" g.md
python3 - <<'PY'
import json
def load(p):
    return json.load(open(p))["body"]["predicate"]
g, d = load("g.json"), load("d.json")
assert g["protocol"]["launch"] == "graph", g["protocol"].get("launch")
assert d["protocol"]["launch"] == "direct", d["protocol"].get("launch")
def medians(pred):
    out = {}
    for row in pred["rows"]:
        assert row["disposition"] == "passed", (row["id"], row["disposition"], row.get("error"))
        for pair in row["pairs"]:
            for side in ("candidate", "baseline"):
                out[(row["id"], pair["baseline"], side)] = pair[side + "_stats"]["median_us"]
    return out
mg, md = medians(g), medians(d)
assert mg.keys() == md.keys() and mg, (mg, md)
for k in sorted(mg):
    print(k, "graph %.2f us, direct %.2f us" % (mg[k], md[k]))
    assert mg[k] > 0 and md[k] > 0, k
    assert 0.5 <= mg[k] / md[k] <= 2.0, (k, mg[k], md[k])
print("ok")
PY
check "graph-mode medians positive and within 2x of direct mode" 0 $?
"$KGATE" rerun g.json --out-dir re --quiet >/dev/null 2>>err.txt
check "rerun of the graph-mode receipt" 0 $?
python3 -c 'import json,sys; p=json.load(open("re/g.json"))["body"]["predicate"]["protocol"]; sys.exit(p["launch"] != "graph")'
check "rerun reproduces launch graph" 0 $?
SYNC="${KGATE_TEST_EXPORTS_DIR:-}/export_sync_ssu.so"
if [ -f "$SYNC" ]; then
  "$KGATE" run --backend cuda --quiet --no-peaks --cases "$SRC/cases/ssu.json" --rows 'ssu-nemotron-h-bf16-b1' \
    --candidate ssu.fast --baseline "export:$SYNC:sync" --launch graph --groups 1 --m 1 --out s.json >/dev/null 2>>err.txt
  check "a row whose arm cannot be captured: the run completes, the policy fails" 1 $?
  "$KGATE" audit s.json >/dev/null; check "its receipt audits" 0 $?
  python3 - <<'PY'
import json
row = json.load(open("s.json"))["body"]["predicate"]["rows"][0]
print(row["id"], row["disposition"], row.get("error"))
assert row["disposition"] == "not_supported", row["disposition"]
assert "cannot be captured in a CUDA graph" in row["error"] and "sync" in row["error"], row["error"]
PY
  check "the uncapturable arm is refused with the reason" 0 $?
else
  echo "FAIL: $SYNC is not built"
  fails=$((fails + 1))
fi
finish
