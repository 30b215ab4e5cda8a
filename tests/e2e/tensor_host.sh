#!/usr/bin/env bash
# The tensor family on the CPU backend, as a user without a GPU runs it: the README's RMSNorm
# example export (examples/tensor/rmsnorm.c) built with cc against the ABI headers, run against
# the oracle arm its table names, sealed, audited and gated; the cheating host arms of
# tests/exports/cheat_tensor.cpp each refused naming a timed call, the honest one passing; and the
# table's mistakes refused before any work, naming the field.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 77; }
cc -O2 -Wall -Werror -shared -fPIC -I"$SRC/harness/export" -I"$SRC/kernels" "$SRC/examples/tensor/rmsnorm.c" \
  -o librmsnorm.so -lm
check "the example export builds with cc" 0 $?
[ "$(wc -l <"$SRC/examples/tensor/rmsnorm.c")" -lt 40 ]; check "the example export is under 40 lines" 0 $?
"$KGATE" list --export librmsnorm.so >list.txt; check "list --export" 0 $?
expect_grep "its arms are cpu arms" "rmsnorm.mine.*cpu\|cpu.*rmsnorm.mine" list.txt
run_rms() {  # run_rms TABLE FLAGS...
  local table=$1
  shift
  "$KGATE" run --backend cpu --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --cases "$table" \
    --candidate export:librmsnorm.so:rmsnorm.mine "$@"
}
run_rms "$SRC/examples/tensor/rmsnorm.json" --baseline export:librmsnorm.so:rmsnorm.ref --policy correct --out rms.json >out.txt 2>&1
check "run the example against its oracle arm" 0 $?
expect_grep "every row passes" "5 rows, 5 pass policy" out.txt
"$KGATE" audit rms.json >/dev/null; check "audit" 0 $?
"$KGATE" gate rms.json --policy correct >/dev/null; check "gate correct" 0 $?
# The charts name an export arm by its name where that is unambiguous; the tables keep its identity.
"$KGATE" report rms.json --format html --out rms.html; check "html report" 0 $?
expect_grep "a short label in the charts" "rmsnorm.ref (export): every timed sample" rms.html
expect_grep "the full identity in the tables" "export:librmsnorm.so:rmsnorm.ref" rms.html
python3 - rms.json <<'PY' || fails=$((fails + 1))
import json, sys
p = json.load(open(sys.argv[1]))["body"]["predicate"]
rows = p["rows"]
assert [r["disposition"] for r in rows] == ["passed"] * 5, [r["disposition"] for r in rows]
assert rows[0]["params"]["rows"] == 1 and rows[0]["params"]["operator"]["name"] == "rmsnorm", rows[0]["params"]
lib = [s for a in p["arms"] for s in a["sources"] if s.get("kind") == "export_library"]
assert lib and all(s["path"] == "librmsnorm.so" for s in lib), lib
print("ok: 5 rows passed; the library (candidate and oracle) is a subject of the receipt")
PY
sed 's/"rows", "cols"\], "dtype": "f32", "fill"/"rows", "colz"], "dtype": "f32", "fill"/' "$SRC/examples/tensor/rmsnorm.json" >bad.json
run_rms bad.json --baseline export:librmsnorm.so:rmsnorm.ref --policy correct --out x.json >bad.err 2>&1
check "a shape naming no dimension is refused" 2 $?
expect_grep "the refusal names the field" "params.operator.tensors\[0\].shape\[1\]" bad.err
LIB="${KGATE_TEST_EXPORTS_DIR:-}/export_cheat_tensor.so"
if [ -f "$LIB" ]; then
  run_rms "$SRC/examples/tensor/rmsnorm.json" --baseline "export:$LIB:cheat.ref" --policy correct --out x.json >ref.err 2>&1
  check "an oracle arm the run does not name is refused" 2 $?
  expect_grep "the refusal says to name it" "name it as a --baseline" ref.err
  for arm in honest first_calls memo_ptr even_calls stale; do
    "$KGATE" run --backend cpu --quiet --groups 1 --m 2 --warmup-calls 1 --warmup-us 0 \
      --cases "$SRC/tests/exports/cheat_tensor.json" --candidate "export:$LIB:cheat.$arm" \
      --baseline "export:$LIB:cheat.ref" --policy correct --out "cheat_$arm.json" >/dev/null 2>&1
    check "cheat.$arm: the run ends (exit 0 or gate failure 1)" 1 $(($? <= 1))
  done
  python3 - <<'PY' || fails=$((fails + 1))
import json, re
for arm in ["honest", "first_calls", "memo_ptr", "even_calls", "stale"]:
    for r in json.load(open(f"cheat_{arm}.json"))["body"]["predicate"]["rows"]:
        text = json.dumps({k: r.get(k) for k in ("error", "correctness")})
        want = r["disposition"] == "passed" if arm == "honest" else \
            r["disposition"] == "incorrect" and re.search(r"timed call", text, re.I) is not None
        assert want, (arm, r["id"], r["disposition"], text[:400])
print("ok: every cheating host arm incorrect, naming a timed call; the honest arm passed")
PY
else
  echo "FAIL: $LIB is not built"
  fails=$((fails + 1))
fi
finish
