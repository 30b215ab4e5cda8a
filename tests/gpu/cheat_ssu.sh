#!/usr/bin/env bash
# The timed-call proof on the device: each cheating arm of tests/exports/cheat_ssu.cu (honest on
# a row's correctness checks, cheating on the timed calls after them) against ssu.baseline makes
# every row `incorrect`, its error naming a timed call; the library's honest arm, the same
# kernel, passes. Rows of distinct shapes (the export tells rows apart by shape and addresses),
# the CPU oracle's and the GPU oracle's (b256), a z row and a pad row; one group, so each row is
# one unit and its checks come before any timed call. The receipts are kept under $KGATE_GPU_OUT
# when it is set.
source "$(dirname "$0")/lib_gpu.sh"
LIB="${KGATE_TEST_EXPORTS_DIR:-}/export_cheat_ssu.so"
[ -f "$LIB" ] || { echo "skip: $LIB is not built"; exit 77; }
ROWS='ssu-nemotron-h-bf16-b8,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-tp2-bf16-b64-pad,ssu-nemotron-h-bf16-b256'
cd "$WORK"
for arm in honest first_calls memo_ptr even_calls stale; do
  "$KGATE" run --backend cuda --quiet --no-peaks --cases "$SRC/cases/ssu.json" --rows "$ROWS" \
    --candidate "export:$LIB:cheat.$arm" --baseline ssu.baseline --policy correct --groups 1 \
    --out "cheat_$arm.json" >"$arm.out" 2>"$arm.err"
  rc=$?
  cat "$arm.err"
  check "cheat.$arm: the run ends (exit 0 or gate failure 1)" 1 $((rc == 0 || rc == 1))
  "$KGATE" audit "cheat_$arm.json" >/dev/null
  check "cheat.$arm: the receipt audits" 0 $?
  [ -n "${KGATE_GPU_OUT:-}" ] && mkdir -p "$KGATE_GPU_OUT" && cp "cheat_$arm".*json "$KGATE_GPU_OUT"/
done
python3 - <<'PY'
import json, re
bad = 0
for arm in ["honest", "first_calls", "memo_ptr", "even_calls", "stale"]:
    rows = json.load(open(f"cheat_{arm}.json"))["body"]["predicate"]["rows"]
    assert len(rows) == 4, (arm, len(rows))
    for r in rows:
        text = json.dumps({k: r.get(k) for k in ("error", "correctness")})
        print(arm, r["id"], r["disposition"], text[:300])
        if arm == "honest":
            ok = r["disposition"] == "passed"
        else:
            ok = r["disposition"] == "incorrect" and re.search(r"timed call", text, re.I) is not None
        bad += not ok
        if not ok:
            print("  ^ FAIL: want", "passed" if arm == "honest" else "incorrect, naming a timed call")
raise SystemExit(1 if bad else 0)
PY
check "every cheating arm refused on every row at a timed call, the honest arm passed" 0 $?
finish
