#!/usr/bin/env bash
# ag_gemm's rank runners at world size 1 on one H200: the same table through the rank-thread
# runner (--gpus 1) and through the rank-process path (--rendezvous, no launcher: rank 0 of 1),
# then a check that both receipts (and the single-process receipt given as $2, if any) have the
# same rows, params, arms and dispositions. Usage: h200_ag_gemm_runners.sh [BUILD_DIR] [SINGLE.json]
set -uo pipefail
source "$(dirname "$0")/env.sh" "${1:-build}"
args=(--quiet --cases cases/ag_gemm.json --candidate ag_gemm.overlap --baseline ag_gemm.baseline,ag_gemm.floor
      --policy cases/policies/ag_gemm.json)
"$K" run "${args[@]}" --gpus 1 --out "$R/ag_gemm_runner_threads_w1.json"; echo "threads: rc=$?"
rdv=$(mktemp -d)/rendezvous
"$K" run "${args[@]}" --rendezvous "$rdv" --out "$R/ag_gemm_runner_processes_w1.json"; echo "processes: rc=$?"
for f in "$R"/ag_gemm_runner_*_w1.json; do "$K" audit "$f" | tail -1; done
python3 - "$R/ag_gemm_runner_threads_w1.json" "$R/ag_gemm_runner_processes_w1.json" ${2:+"$2"} <<'PY'
import json, sys
preds = [json.load(open(p))["body"]["predicate"] for p in sys.argv[1:]]
key = lambda p: ([(r["id"], json.dumps(r["params"], sort_keys=True), r["disposition"]) for r in p["rows"]],
                 [a["name"] for a in p["arms"]])
for p, path in zip(preds, sys.argv[1:]):
    print(f'{path.split("/")[-1]}: {len(p["rows"])} rows, arms {key(p)[1]}, ranks {json.dumps(p["environment"].get("ranks"))}')
print("same rows, params, dispositions and arms:", all(key(p) == key(preds[0]) for p in preds))
PY
python3 scripts/ag_gemm_table.py "$R/ag_gemm_runner_processes_w1.json" | tail -3
