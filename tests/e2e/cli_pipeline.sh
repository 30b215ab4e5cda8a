#!/usr/bin/env bash
# run -> audit -> gate -> compare -> report -> index on the CPU backend, and the exit codes of each.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
cp -r "$SRC/cases" cases
run() { "$KGATE" run --backend cpu --quiet --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 "$@"; }
# Without --quiet: the summary and where the host time went.
"$KGATE" run --backend cpu --groups 2 --m 2 --warmup-calls 1 --warmup-us 0 --cases cases/cpu/ag_gemm.json \
  --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out r1.json >out.txt 2>err.txt
check "run ag_gemm" 0 $?
expect_grep "run prints a summary" "3 rows, 3 pass policy" out.txt
expect_grep "run prints where the host time went" "host time: prepare" out.txt
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out r2.json --seed 9 >/dev/null 2>&1
check "second run" 0 $?
"$KGATE" audit r1.json r2.json >audit.txt; check "audit two receipts" 0 $?
expect_grep "audit says OK" "r1.json: OK" audit.txt
"$KGATE" gate r1.json --policy correct >gate.txt; check "gate correct" 0 $?
"$KGATE" gate r1.json --policy "correct,limit(1000)" >/dev/null; check "gate generous limit" 0 $?
# Reversed roles: the scalar arm as candidate is slower, so strict must fail.
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_blocked --baseline ag_gemm.cpu_eigen --out slow.json --policy strict >/dev/null 2>&1
check "run with a failing strict policy exits 1" 1 $?
"$KGATE" audit slow.json >/dev/null; check "a failing receipt still audits" 0 $?
"$KGATE" gate slow.json --policy strict >gate2.txt; check "gate strict on slower candidate" 1 $?
expect_grep "gate names the failing gate" "gates=strict" gate2.txt
# Per-baseline gates (JSON policy, by_baseline): the failure names its baseline; names are checked.
echo '{"gates": ["correct"], "by_baseline": {"ag_gemm.cpu_eigen": {"gates": ["strict"]}}}' > pb.json
"$KGATE" gate slow.json --policy pb.json >gate3.txt; check "gate by_baseline strict on slower candidate" 1 $?
expect_grep "by_baseline failure names its baseline" "gates=strict@ag_gemm.cpu_eigen" gate3.txt
"$KGATE" gate r1.json --policy pb.json >/dev/null 2>&1; check "by_baseline naming an arm that is no baseline here" 2 $?
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_blocked --baseline ag_gemm.cpu_eigen --out pb_run.json \
  --policy pb.json >/dev/null 2>&1
check "run under a by_baseline policy: strict@ fails" 1 $?
"$KGATE" audit pb_run.json >/dev/null; check "a by_baseline receipt audits" 0 $?
echo '{"gates": ["correct"], "by_baseline": {"ag_gemm.cpu_blocked": {"gates": ["limit"], "limit": 1000}}}' > pb2.json
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out pb2_run.json \
  --policy pb2.json >/dev/null 2>&1
check "run under a by_baseline policy: limit@ passes" 0 $?
run --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --out x.json \
  --policy pb.json >/dev/null 2>&1
check "run refuses a by_baseline name that is not a --baseline" 2 $?
"$KGATE" gate r1.json --policy correct --against-tree "$SRC" >/dev/null; check "gate against the unchanged tree" 0 $?
mkdir tree && cp -r "$SRC/kernels" "$SRC/references" tree/ && cp -r cases tree/cases
echo "// changed" >> tree/kernels/ag_gemm/cpu_arms.cpp
"$KGATE" gate r1.json --policy correct --against-tree tree >stale.txt; check "gate against a changed kernel" 1 $?
expect_grep "gate names the stale source" "STALE kernels/ag_gemm/cpu_arms.cpp" stale.txt
"$KGATE" compare r1.json r2.json --threshold 0.5 >cmp.txt; check "compare" 0 $?
expect_grep "compare matches rows" "of 3 matched pairs" cmp.txt
"$KGATE" compare r1.json slow.json >/dev/null 2>cmp2.txt; check "compare receipts with other arms" 2 $?
expect_grep "rows of other arms are not matched" "no rows match" cmp2.txt
"$KGATE" compare r1.json r2.json --threshold -1 >/dev/null 2>&1; check "negative threshold" 2 $?
"$KGATE" report r1.json --format md >r.md; check "report md" 0 $?
expect_grep "md table" "| ag-cpu-w2-m32-n128-k256 |" r.md
"$KGATE" report r1.json --format csv >r.csv; check "report csv" 0 $?
[ "$(wc -l <r.csv)" -eq 4 ]; check "csv has header + 3 rows" 0 $?
"$KGATE" report r1.json --format pdf >/dev/null 2>&1; check "unknown report format" 2 $?
"$KGATE" report r1.json --format wide >w.md; check "report wide" 0 $?
expect_grep "wide: geomean line" "| geomean over 3 rows |" w.md
"$KGATE" report r1.json --format wide --anchor no.such.arm >/dev/null 2>&1; check "wide: unknown anchor" 2 $?
"$KGATE" report r1.json --anchor ag_gemm.cpu_blocked >/dev/null 2>&1; check "--anchor without wide" 2 $?
# Signed receipts.
"$KGATE" keygen k >/dev/null; check "keygen" 0 $?
run --cases cases/cpu/ssu.json --rows 'ssu-cpu-h8g1*' --candidate ssu.cpu_eigen --baseline ssu.cpu_scalar --out s.json --sign k.key >/dev/null 2>&1
check "signed run" 0 $?
"$KGATE" audit s.json --pubkey k.pub >/dev/null; check "audit with the right key" 0 $?
"$KGATE" keygen other >/dev/null
"$KGATE" audit s.json --pubkey other.pub >/dev/null; check "audit with another key" 1 $?
"$KGATE" audit r1.json --pubkey k.pub >/dev/null; check "unsigned receipt with --pubkey" 1 $?
# Tampering.
sed 's/"disposition":"passed"/"disposition":"failed"/' r1.json >t.json
"$KGATE" audit t.json >/dev/null; check "audit a tampered copy" 1 $?
"$KGATE" gate t.json --policy correct >/dev/null 2>&1; check "gate refuses a tampered receipt" 1 $?
"$KGATE" report t.json >/dev/null 2>&1; check "report refuses a tampered receipt" 1 $?
# The index of a receipts folder: one line per receipt, from the audited receipts alone.
mkdir idx && cp r1.json r1.*.samples.json slow.json slow.*.samples.json idx/ && cp r.md idx/r1.report.md
"$KGATE" index idx >idx.md; check "index a folder" 0 $?
expect_grep "index: one line per receipt" "| r1.json | CPU " idx.md
expect_grep "index: the case table and the candidate" "(cases/cpu/ag_gemm.json) | ag_gemm.cpu_eigen |" idx.md
expect_grep "index: rows passing the recorded policy" " | 3/3 | " idx.md
expect_grep "index: a failing receipt's result" " | 0/3 FAIL | " idx.md
expect_grep "index: per-baseline geomean and minimum" "ag_gemm.cpu_blocked: [0-9.]*x, min [0-9.]*x (ag-cpu-" idx.md
[ "$(grep -c '^| [a-z0-9]*\.json |' idx.md)" -eq 2 ]; check "index: sidecars and reports are not receipts" 0 $?
[ "$(grep -n 'r1.json' idx.md | cut -d: -f1)" -lt "$(grep -n 'slow.json' idx.md | cut -d: -f1)" ]
check "index: file-name order" 0 $?
commit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["body"]["predicate"]["tool"]["git_commit"][:12])' r1.json)
expect_grep "index: the short commit" "| $commit |" idx.md
"$KGATE" index idx --json --out idx.json; check "index --json --out" 0 $?
expect_grep "index json schema" '"schema": "kgate.index/1"' idx.json
"$KGATE" index idx >idx2.md && cmp -s idx.md idx2.md; check "index is deterministic" 0 $?
cp t.json idx/tampered.json
"$KGATE" index idx >idx3.md; check "index with a receipt that fails audit" 1 $?
expect_grep "index names the failed audit" "| tampered.json | FAILED AUDIT: " idx3.md
expect_grep "index still lists the good ones" "| r1.json | CPU " idx3.md
"$KGATE" index no_such_dir >/dev/null 2>&1; check "index of a missing folder" 2 $?
mkdir empty && "$KGATE" index empty >/dev/null 2>&1; check "index of a folder without receipts" 2 $?
"$KGATE" index --help >ih.txt; check "index --help" 0 $?
expect_grep "index --help says what it reads" "samples.json" ih.txt
# Usage errors: exit 2 with one line.
"$KGATE" run --backend cpu --cases cases/cpu/ag_gemm.json --candidate ssu.cpu_eigen --baseline ag_gemm.cpu_blocked --out x.json 2>e.txt
check "arm of another family" 2 $?
expect_grep "names the flag" "candidate ssu.cpu_eigen" e.txt
"$KGATE" run --backend cpu --cases cases/cpu/ag_gemm.json --candidate ag_gemm.nope --baseline ag_gemm.cpu_blocked --out x.json 2>/dev/null
check "unknown arm" 2 $?
"$KGATE" run --backend cpu --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --blocks 3 --out x.json 2>/dev/null
check "odd --blocks" 2 $?
"$KGATE" run --backend cpu --cases cases/cpu/ag_gemm.json --candidate ag_gemm.cpu_eigen --baseline ag_gemm.cpu_blocked --policy "fast" --out x.json 2>/dev/null
check "unknown gate" 2 $?
"$KGATE" run --bogus 2>/dev/null; check "unknown flag" 2 $?
"$KGATE" 2>/dev/null; check "no subcommand" 2 $?
"$KGATE" audit missing.json >/dev/null; check "audit a missing file" 1 $?
"$KGATE" gate r1.json --policy "limit(x)" 2>/dev/null; check "bad policy value" 2 $?
"$KGATE" list >list.txt; check "list" 0 $?
expect_grep "list shows arms" "ssu.cpu_eigen" list.txt
expect_grep "list shows tables" "cases/cpu/ssu.json" list.txt
"$KGATE" env --backend cpu >env.txt; check "env" 0 $?
expect_grep "env names the backend" '"backend": "cpu"' env.txt
"$KGATE" run --help >help.txt; check "run --help" 0 $?
expect_grep "help explains --resume" "resume" help.txt
finish
