#!/usr/bin/env bash
# Statements beside a receipt on the CPU backend: run --check-only, sanitize (under the fake
# compute-sanitizer of tests/e2e/fake), the sanitized gate, accept, and what audit refuses: a
# tampered statement or log, a statement bound to another receipt, a resealed acceptance whose
# verdicts its receipt does not give, a signature by another key.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
cp -r "$SRC/cases" cases
FAKE="$SRC/tests/e2e/fake"
run() { "$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 "$@"; }
reseal() {  # reseal FILE PYTHON-EXPR-ON-b: edit the body, recompute its digest (an unsigned forgery)
  python3 - "$1" "$2" <<'EOF'
import hashlib, json, sys
p, expr = sys.argv[1], sys.argv[2]
s = json.load(open(p))
b = s["body"]
exec(expr)
canon = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
s["seal"]["body_sha256"] = hashlib.sha256(canon(b).encode()).hexdigest()
open(p, "w").write(canon(s) + "\n")
EOF
}
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out r.json >/dev/null 2>&1
check "run a receipt" 0 $?

# run --check-only: every arm of every row checked, nothing timed or written.
mkdir co && "$KGATE" run --backend cpu --check-only --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen \
  --baseline ag_gemm.cpu_blocked --out-dir co >co.txt 2>&1
check "run --check-only" 0 $?
expect_grep "check-only names each row and arm" "ag_gemm.cpu_blocked: passed" co.txt
[ -z "$(ls co)" ]; check "run --check-only writes nothing" 0 $?
run --check-arm ag_gemm.cpu_eigen --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen \
  --baseline ag_gemm.cpu_blocked >/dev/null 2>&1
check "--check-arm without --check-only" 2 $?
run --check-only --check-arm nope --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen \
  --baseline ag_gemm.cpu_blocked >/dev/null 2>&1
check "--check-arm naming no arm of the run" 2 $?

# sanitize: refused without the tool, then the whole flow under the fake one.
"$KGATE" sanitize r.json --sanitizer ./no-such-sanitizer >err.txt 2>&1
check "sanitize without compute-sanitizer" 2 $?
expect_grep "says the tool is missing" "compute-sanitizer not found" err.txt
PATH="$FAKE:$PATH" "$KGATE" sanitize r.json --tools memcheck,bogus >/dev/null 2>&1
check "sanitize --tools with an unknown tool" 2 $?
"$KGATE" gate r.json --policy correct,sanitized >nogate.txt
check "gate sanitized without a statement fails" 1 $?
expect_grep "the gate says there is no statement" "no sanitize statement" nogate.txt
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out x.json \
  --policy correct,sanitized >/dev/null 2>&1
check "run refuses the sanitized gate" 2 $?
PATH="$FAKE:$PATH" "$KGATE" sanitize r.json --quiet >san.txt 2>&1
check "sanitize under the fake tool" 0 $?
expect_grep "sanitize counts the runs (2 arms x 4 tools)" "8 runs" san.txt
[ -f r.sanitize.json ] && [ -f r.sanitize.logs/a0.racecheck.log ]; check "statement and logs beside the receipt" 0 $?
"$KGATE" audit r.json >audit.txt; check "audit the receipt with its statement" 0 $?
expect_grep "audit checks the statement beside it" "r.sanitize.json: OK (sanitize statement" audit.txt
"$KGATE" audit r.sanitize.json >/dev/null; check "audit the statement alone" 0 $?
"$KGATE" gate r.json --policy correct,sanitized >/dev/null; check "gate sanitized with a clean statement" 0 $?
"$KGATE" sanitize r.json --tools memcheck --sanitizer "$FAKE/compute-sanitizer" --quiet >/dev/null 2>&1
check "sanitize under one tool" 0 $?
"$KGATE" gate r.json --policy correct,sanitized >one.txt; check "gate sanitized needs every tool" 1 $?
expect_grep "the gate names the missing tool" "was not run under racecheck" one.txt
PATH="$FAKE:$PATH" "$KGATE" sanitize r.json --quiet --per-row >san2.txt 2>&1
check "sanitize --per-row" 0 $?
expect_grep "one run per row, arm and tool (3 x 2 x 4)" "24 runs" san2.txt
"$KGATE" gate r.json --policy correct,sanitized >/dev/null; check "gate sanitized on per-row evidence" 0 $?
PATH="$FAKE:$PATH" "$KGATE" sanitize r.json --quiet --rows 'ag-*' >/dev/null 2>&1

# Tampering: the statement's bytes, a log, a resealed count.
cp r.sanitize.json good.sanitize.json
sed -i 's/"errors":0/"errors":1/' r.sanitize.json
"$KGATE" audit r.json >t1.txt; check "a tampered statement fails audit" 1 $?
expect_grep "names the digest" "body digest mismatch" t1.txt
"$KGATE" gate r.json --policy correct,sanitized >/dev/null; check "a tampered statement fails the gate" 1 $?
cp good.sanitize.json r.sanitize.json
reseal r.sanitize.json 'b["predicate"]["runs"][0]["errors"] = 0; b["predicate"]["runs"][0]["exit_code"] = 0; b["predicate"]["runs"][1]["errors"] = 5'
"$KGATE" audit r.sanitize.json >t2.txt; check "a resealed count its log does not give fails audit" 1 $?
expect_grep "names the log" "recorded counts differ from its log" t2.txt
cp good.sanitize.json r.sanitize.json
echo "extra" >>r.sanitize.logs/a0.memcheck.log
"$KGATE" audit r.json >t3.txt; check "a changed log fails audit" 1 $?
expect_grep "names the log's digest" "digest mismatch" t3.txt

# A statement bound to another receipt: the receipt re-made under the same name.
PATH="$FAKE:$PATH" "$KGATE" sanitize r.json --quiet >/dev/null 2>&1
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out r.json \
  --seed 9 --force >/dev/null 2>&1
"$KGATE" audit r.json >t4.txt; check "a statement bound to another receipt fails audit" 1 $?
expect_grep "says so" "bound to another receipt" t4.txt
"$KGATE" gate r.json --policy correct,sanitized >t5.txt; check "... and the sanitized gate" 1 $?
expect_grep "the gate says the statement does not audit" "does not audit" t5.txt

# Errors reported by the tool fail the gate; the statement itself audits.
FAKE_SANITIZER_ERRORS=2 PATH="$FAKE:$PATH" "$KGATE" sanitize r.json --quiet >/dev/null 2>&1
check "sanitize with errors exits 1" 1 $?
"$KGATE" audit r.json >/dev/null; check "a statement with errors audits" 0 $?
"$KGATE" gate r.json --policy correct,sanitized >t6.txt; check "errors fail the sanitized gate" 1 $?
expect_grep "the gate names the count" "2 errors" t6.txt

# accept: a later policy's verdicts beside the frozen ones.
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_blocked --baseline ag_gemm.cpu_eigen --out slow.json \
  --policy correct,strict >/dev/null 2>&1
check "a receipt that fails strict" 1 $?
"$KGATE" accept slow.json --policy 'correct,limit(1000)' --reason '' >/dev/null 2>&1
check "accept refuses an empty reason" 2 $?
"$KGATE" accept slow.json --policy 'correct,fastest' --reason 'x' >/dev/null 2>&1
check "accept refuses a bad policy" 2 $?
"$KGATE" accept slow.json --policy 'correct,limit(1000)' --reason 'user-authorized ceiling' >acc.txt
check "accept" 0 $?
expect_grep "accept counts the rows" "3 of 3 rows pass policy" acc.txt
"$KGATE" audit slow.json >a1.txt; check "audit the receipt with its acceptance" 0 $?
expect_grep "audit checks the acceptance" "slow.accept.json: OK (accept statement" a1.txt
"$KGATE" report slow.json --format md >rep.md; check "report with an acceptance" 0 $?
expect_grep "the report shows the acceptance" "user-authorized ceiling" rep.md
"$KGATE" report slow.json --format json >rep.json; check "json report with an acceptance" 0 $?
expect_grep "the json report holds the acceptance" '"acceptance"' rep.json
cp slow.accept.json good.accept.json
reseal slow.accept.json 'b["predicate"]["rows"][0]["recorded"]["passed"] = True; b["predicate"]["rows"][0]["recorded"]["failed"] = []'
"$KGATE" audit slow.json >a2.txt; check "a resealed acceptance with other recorded verdicts fails" 1 $?
expect_grep "names the row" "verdicts differ" a2.txt
cp good.accept.json slow.accept.json
reseal slow.accept.json 'b["predicate"]["policy"]["gates"] = ["correct", "strict"]'
"$KGATE" audit slow.accept.json >a3.txt; check "a resealed acceptance whose policy does not give its verdicts fails" 1 $?
cp good.accept.json slow.accept.json
sed -i 's/user-authorized/user-approved/' slow.accept.json
"$KGATE" audit slow.json >/dev/null; check "an edited reason fails audit" 1 $?

# Signatures: by the key given, not another.
"$KGATE" keygen k >/dev/null && "$KGATE" keygen other >/dev/null
"$KGATE" accept slow.json --policy 'correct,limit(1000)' --reason 'signed' --sign k.key >/dev/null
check "accept --sign" 0 $?
"$KGATE" audit slow.accept.json --pubkey k.pub >/dev/null; check "a signed statement by its key" 0 $?
"$KGATE" audit slow.accept.json --pubkey other.pub >/dev/null; check "a signed statement by another key" 1 $?
finish
