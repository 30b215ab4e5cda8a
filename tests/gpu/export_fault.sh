#!/usr/bin/env bash
# An export arm that faults on the device, under --isolate: tests/exports/trap_ssu.cu traps on
# rows with batch >= 8 and refuses the others. Its faulting rows fail, each with the CUDA error
# recorded; the refused row is not a failure of the arm; the campaign runs every row,
# completes (exit 1: the policy fails) and its receipt audits with the library as a subject.
source "$(dirname "$0")/lib_gpu.sh"
TRAP="${KGATE_TEST_EXPORTS_DIR:-}/export_trap_ssu.so"
[ -f "$TRAP" ] || { echo "skip: $TRAP is not built"; exit 77; }
cd "$WORK"
"$KGATE" run --backend cuda --quiet --isolate --no-peaks --cases "$SRC/cases/ssu.json" \
  --rows 'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8,ssu-nemotron-h-bf16-b16' \
  --candidate ssu.fast --baseline "export:$TRAP:trap" --groups 1 --m 1 --out r.json >out.txt 2>err.txt
check "campaign with a trapping export completes, policy fails" 1 $?
"$KGATE" audit r.json >/dev/null; check "receipt audits" 0 $?
python3 - "$TRAP" <<'PY'
import hashlib, json, sys
body = json.load(open("r.json"))["body"]
rows = {x["id"]: x for x in body["predicate"]["rows"]}
for i, row in sorted(rows.items()):
    print(i, row["disposition"], row.get("error") or "")
for i in ("ssu-nemotron-h-bf16-b8", "ssu-nemotron-h-bf16-b16"):
    assert rows[i]["disposition"] == "failed", (i, rows[i]["disposition"])
    assert "CUDA error" in rows[i]["error"], (i, rows[i]["error"])
b1 = rows["ssu-nemotron-h-bf16-b1"]
assert b1["disposition"] != "failed", b1
assert "batch 1 < 8 is refused" in json.dumps(b1), b1
sha = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
assert any(s.get("digest", {}).get("sha256") == sha for s in body["subject"]), body["subject"]
print("ok")
PY
check "faulting rows failed with their CUDA error, the refused row did not, the library is a subject" 0 $?
finish
