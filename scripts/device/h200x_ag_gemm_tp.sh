#!/usr/bin/env bash
# ag_gemm on several H200s of one host (issue 16): for each world size W in $WORLDS (default: the
# largest of 8, 4, 2 the host has), the TP sweep and packed-QKV rows of cases/ag_gemm_tp.json
# through the rank-thread runner (--gpus W: maximum-rank medians, cold L2, ABBA/BAAB), overlap vs
# the NCCL + cuBLAS baseline (strict) and the GEMM floor; receipts ag_gemm_tp<W>.json, audited and
# tabulated (per-rank spread: the samples sidecar; cross_device_us: each row). NVLink multicast
# stays off (the device README). Usage: h200x_ag_gemm_tp.sh [BUILD_DIR]
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$(dirname "$0")/env.sh" "${1:-build}"
have=$(nvidia-smi -L | wc -l)
if [ -z "${WORLDS:-}" ]; then
  for w in 8 4 2; do [ "$have" -ge "$w" ] && { WORLDS=$w; break; }; done
fi
[ -n "${WORLDS:-}" ] || { echo "h200x_ag_gemm_tp: $have GPU(s): needs 2 or more"; exit 77; }
nvidia-smi topo -m
for W in $WORLDS; do
  t0=$SECONDS
  "$K" run --quiet --cases cases/ag_gemm_tp.json --rows "tp$W-*" --gpus "$W" --candidate ag_gemm.overlap \
    --baseline ag_gemm.baseline,ag_gemm.floor --policy cases/policies/ag_gemm_tp.json --out "$R/ag_gemm_tp$W.json"
  echo "tp$W: rc=$? campaign wall $((SECONDS - t0)) s"
  "$K" audit "$R/ag_gemm_tp$W.json" | tail -1
  python3 scripts/ag_gemm_table.py "$R/ag_gemm_tp$W.json"
  python3 - "$R/ag_gemm_tp$W.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["body"]["predicate"]["rows"]:
    u = r.get("cross_device_us") or {}
    print(r["id"], "cross-device union median us:", {a.split(".")[-1]: round(v["median"], 1) for a, v in u.items()})
PY
done
