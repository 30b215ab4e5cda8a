#!/usr/bin/env bash
# --json: list, run (one run and a suite), audit and gate print one JSON document on stdout
# (progress stays on stderr); gate explains every failing gate of a row, as a line and as JSON:
# the ratio, its interval and the threshold it was judged against.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
tiny=(--backend cpu --groups 2 --m 1 --warmup-calls 1 --warmup-us 0)
ag=(--cases "$SRC/cases/cpu/ag_gemm.json")
py() {  # py name file code: parse file as one JSON document (j), then run the assertions in code
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); $3" "$2"; check "$1" 0 $?
}
"$KGATE" list --json >list.json; check "list --json" 0 $?
py "list: one document, arms, tables, machine" list.json '
names = [i["name"] for i in j["implementations"]]
assert "ssu.cpu_eigen" in names and "ssu" in [f["name"] for f in j["families"]], names
assert any(t["path"] == "cases/cpu/ssu.json" and t["rows"] > 0 for t in j["case_tables"]), j["case_tables"]
assert j["machine"]["backend"] in ("cpu", "cuda")'
"$KGATE" run "${tiny[@]}" "${ag[@]}" --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out r.json --json \
  >run.json 2>run.err
check "run --json" 0 $?
py "run: receipt, rows, pass/fail, per-baseline geomean and min" run.json '
assert j["receipt"] == "r.json" and j["rows"] == 3 and j["policy_passed"] == 3 and j["policy_failed"] == 0, j
assert j["passed"] is True
b = j["by_baseline"]["ag_gemm.cpu_blocked"]
assert b["geomean_ratio"] > 0 and b["min_ratio"] > 0 and b["min_ratio_row"].startswith("ag-cpu"), b'
expect_grep "run: progress stays on stderr" "^\[kgate\] " run.err
py "run: the environment records the measured peaks" r.json '
p = j["body"]["predicate"]["environment"]["peaks"]
assert p["copy_bytes_per_s"] > 0 and p["gemm_bf16_flops_per_s"] is None, p'
"$KGATE" run "${tiny[@]}" "${ag[@]}" --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out np.json \
  --no-peaks >/dev/null 2>&1
check "run --no-peaks" 0 $?
py "run --no-peaks: peaks recorded as not measured, the receipt audits" np.json '
p = j["body"]["predicate"]["environment"]["peaks"]
assert p["copy_bytes_per_s"] is None and p["gemm_bf16_flops_per_s"] is None and "--no-peaks" in p["copy_method"], p'
"$KGATE" audit np.json >/dev/null; check "audit a --no-peaks receipt" 0 $?
"$KGATE" run "${tiny[@]}" "${ag[@]}" --candidate ag_gemm.cpu_blocked --baseline ag_gemm.cpu_eigen --out slow.json \
  --policy strict --json >slow_run.json 2>/dev/null
check "run --json, failing policy: exit 1" 1 $?
py "run: a failing policy reads passed false" slow_run.json 'assert j["passed"] is False and j["policy_failed"] == 3, j'
"$KGATE" run "${tiny[@]}" --quiet --out-dir s --json >suite.json 2>/dev/null; check "suite --json" 0 $?
py "suite: one document, a run per entry" suite.json '
assert j["passed"] is True and len(j["runs"]) == 3, j
assert [r["receipt"] for r in j["runs"]] == ["s/ssu_cpu.json", "s/sparse_mla_cpu.json", "s/ag_gemm_cpu.json"], j'
"$KGATE" audit r.json slow.json s/*.json --json >audit.json; check "audit --json" 0 $?
py "audit: every receipt ok, sidecars named" audit.json '
assert j["ok"] is True
kinds = [r["kind"] for r in j["receipts"]]
assert kinds.count("receipt") == 5 and kinds.count("samples sidecar") == 3, kinds
assert all(r["ok"] and r["rows"] > 0 and len(r["body_sha256"]) == 64 for r in j["receipts"] if r["kind"] == "receipt")'
sed 's/"disposition":"passed"/"disposition":"failed"/' r.json >t.json
"$KGATE" audit t.json --json >audit_t.json; check "audit --json, tampered: exit 1" 1 $?
py "audit: the tampered receipt lists its problems" audit_t.json '
assert j["ok"] is False and j["receipts"][0]["problems"], j'
"$KGATE" gate r.json --policy correct --json >gate_ok.json; check "gate --json" 0 $?
py "gate: passed, no failures" gate_ok.json 'assert j["passed"] is True and j["rows"] == 3 and j["failures"] == [], j'
# Failing gates explained: strict (interval vs 1), strict_median, limit (its value), drift. drift(0):
# the CPU arms' two groups agree to ~5e-5 at times, so any D > 0 could pass a row by chance.
"$KGATE" gate slow.json --policy 'correct,strict,strict_median,limit(0.05),drift(0)' >gate.txt
check "gate: a slower candidate fails" 1 $?
expect_grep "FAIL line names the gates" "gates=strict,strict_median,limit,drift" gate.txt
expect_grep "strict: the interval's lower bound vs 1" \
  "^  strict vs ag_gemm.cpu_eigen: ratio interval lower bound 0\.[0-9]* is not > 1 (ratio 0\.[0-9]*, 99% interval \[0\.[0-9]*, [0-9.]*\]" gate.txt
expect_grep "strict_median: the median vs 1" "^  strict_median vs ag_gemm.cpu_eigen: median ratio 0\.[0-9]* is not > 1" gate.txt
expect_grep "limit: the value it was judged against" \
  "^  limit vs ag_gemm.cpu_eigen: candidate / baseline median time [0-9.]* is not <= 1.05 (ratio 0\.[0-9]*, .*; candidate [0-9.]* us, baseline [0-9.]* us)" gate.txt
expect_grep "drift: the value it was judged against" "^  drift vs ag_gemm.cpu_eigen: drift [0-9.]* is not <= 0 (ratio" gate.txt
[ "$(grep -c '^  ' gate.txt)" -eq 12 ]; check "one line per failing gate (3 rows x 4 gates)" 0 $?
echo '{"gates": ["correct"], "by_baseline": {"ag_gemm.cpu_eigen": {"gates": ["strict", "limit"], "limit": 0.1}}}' >pb.json
"$KGATE" gate slow.json --policy pb.json >gate_pb.txt; check "gate: by_baseline fails" 1 $?
expect_grep "by_baseline: the gate names its baseline" "^  strict@ag_gemm.cpu_eigen: ratio interval" gate_pb.txt
expect_grep "by_baseline: its own limit" "^  limit@ag_gemm.cpu_eigen: .* is not <= 1.1 " gate_pb.txt
"$KGATE" gate slow.json --policy pb.json --json >gate_pb.json; check "gate --json: failing" 1 $?
py "gate --json: per row, per gate: ratio, interval, threshold" gate_pb.json '
assert j["passed"] is False and j["failed_rows"] == 3 and len(j["failures"]) == 3, j
for f in j["failures"]:
    assert f["gates"] == ["strict@ag_gemm.cpu_eigen", "limit@ag_gemm.cpu_eigen"], f
    s, l = f["details"]
    assert s["threshold"] == 1 and s["value"] == s["ratio_ci"]["lo"] <= 1 and s["ratio_ci"]["hi"] >= s["ratio_ci"]["lo"], s
    assert abs(l["threshold"] - 1.1) < 1e-12 and l["value"] > 1.1 and l["baseline"] == "ag_gemm.cpu_eigen", l'
# The table was given by an absolute path: recorded outside the tree, so stale against it.
"$KGATE" gate r.json --policy correct --against-tree "$SRC" --json >gate_tree.json; check "gate --json --against-tree: stale" 1 $?
py "gate --json --against-tree: the stale source listed" gate_tree.json '
assert j["passed"] is False and j["failures"] == [] and j["stale"][0]["kind"] == "source", j
assert "recorded outside the tree" in j["stale"][0]["line"], j'
finish
