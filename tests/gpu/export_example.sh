#!/usr/bin/env bash
# The README's example export (tests/exports/example_ssu.cu) on the device: correct against the
# oracle on the rows it supports (BF16 state and io, fp32 weights: z and pad rows among them),
# refused with its reason on the others (an fp32-state row, a BF16-weight fused row); the
# receipt audits.
source "$(dirname "$0")/lib_gpu.sh"
LIB="${KGATE_TEST_EXPORTS_DIR:-}/export_example_ssu.so"
[ -f "$LIB" ] || { echo "skip: $LIB is not built"; exit 77; }
cd "$WORK"
"$KGATE" run --backend cuda --quiet --no-peaks --cases "$SRC/cases/ssu.json" \
  --rows 'ssu-nemotron-h-bf16-b8,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b8-pad,ssu-nemotron-h-bf16-b64-fused,ssu-nemotron-h-fp32-b8' \
  --candidate "export:$LIB:my.naive" --baseline ssu.fast --policy correct --groups 1 --m 1 --out r.json >out.txt 2>err.txt
rc=$?
cat err.txt
"$KGATE" audit r.json >/dev/null; check "receipt audits" 0 $?
python3 - <<'PY'
import json
rows = {x["id"]: x for x in json.load(open("r.json"))["body"]["predicate"]["rows"]}
for i, r in sorted(rows.items()):
    print(i, r["disposition"], json.dumps(r.get("correctness", {}))[:200])
def fits(p):  # what the example supports: BF16 state and io, fp32 weights
    return p["state_dtype"] == "bf16" and p["io_dtype"] == "bf16" and p["weight_dtype"] == "fp32"
for i, r in rows.items():
    if fits(r["params"]):
        assert r["disposition"] == "passed", (i, r["disposition"], r)
    else:
        assert r["disposition"] == "not_supported", (i, r["disposition"])
        assert "BF16 state and io, fp32 weights only" in r["error"], (i, r["error"])
assert sum(fits(r["params"]) for r in rows.values()) >= 3 and not all(fits(r["params"]) for r in rows.values())
print("ok")
PY
check "BF16 rows correct, the fp32 row refused with its reason" 0 $?
finish
