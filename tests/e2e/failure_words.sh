#!/usr/bin/env bash
# One failure, the same words everywhere: `kgate gate`, `kgate report` (md) and `kgate compare`
# print each failed gate of a row with the same sentence (gate_text). The candidate is the blocked
# GEMM loop against Eigen on a 64x128x256 GEMM (Eigen ~2x faster on any CPU), so under
# correct,strict,limit(0.05) the row fails strict and limit on every run.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
cat >t.json <<'JSON'
{"table": "words", "family": "ag_gemm", "rows": [
  {"id": "slow", "params": {"world_size": 1, "m": 64, "n": 128, "k": 256}}]}
JSON
"$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --cases t.json \
  --candidate ag_gemm.cpu_blocked --baseline ag_gemm.cpu_eigen --policy 'correct,strict,limit(0.05)' \
  --out r.json >/dev/null 2>&1
check "run: the policy fails the row" 1 $?
"$KGATE" gate r.json >gate.txt; check "gate: the row fails" 1 $?
"$KGATE" report r.json >report.md; check "report" 0 $?
"$KGATE" compare r.json r.json >compare.md; check "compare: nothing SLOWER" 0 $?
# Each printer's failure sentences for row "slow": gate's indented lines under its FAIL line, the
# report's Failures items, compare's items for the newer receipt.
python3 - <<'PY'
import re, sys
gate = [l[2:] for l in open("gate.txt").read().splitlines() if l.startswith("  ")]
report = [m.group(1) for m in re.finditer(r"^- `slow` \(passed\): (.*)$", open("report.md").read(), re.M)]
compare = [m.group(1) for m in re.finditer(r"^- new `slow` \(passed\): (.*)$", open("compare.md").read(), re.M)]
print("gate:   ", gate, "\nreport: ", report, "\ncompare:", compare)
ok = len(gate) == 2 and gate == report == compare
ok = ok and gate[0].startswith("strict vs ag_gemm.cpu_eigen: ratio interval lower bound ")
ok = ok and gate[1].startswith("limit vs ag_gemm.cpu_eigen: candidate / baseline median time ")
sys.exit(0 if ok else 1)
PY
check "gate, report and compare word each failure alike" 0 $?
finish
