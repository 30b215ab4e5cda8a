#!/usr/bin/env bash
# Each family's campaign: the `kgate run` commands that first make its receipts, into
# receipts/<arch>/<gpu>/ (receipts.sh re-makes them after that). One function per family.
#
# usage: scripts/device/campaigns.sh [--build DIR] [--peers DIR] FAMILY...   (calib ssu sparse_mla ag_gemm tensor)
#   ssu_graph, sparse_mla_graph: only that family's CUDA-graph campaign (receipts.sh makes them where missing)
#   --missing    make only the receipts that receipts/<arch>/<gpu>/ does not hold yet
#   --build DIR  a build of kgate (default build/)
#   --peers DIR  the export libraries: FlashInfer's and FlashMLA's (scripts/peers/*.sh) and
#                libkgate_ssu_fast.so (kgate export --family ssu --arms ssu.fast); default build-peers;
#                tensor/libgemm.so and tensor/librmsnorm.so there, the examples' exports (built with nvcc when absent)
# Exit: 0 every campaign's receipt passes its policy, 1 otherwise, 2 usage.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build peers=build-peers families=() missing=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    --missing) missing=1; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    calib|ssu|sparse_mla|ag_gemm|tensor|ssu_graph|sparse_mla_graph) families+=("$1"); shift ;;
    *) echo "campaigns.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ "${#families[@]}" -gt 0 ] || { echo "campaigns.sh: name at least one family (--help)" >&2; exit 2; }
K=$(cd "$(dirname "$build/kgate")" && pwd)/kgate
source scripts/device/gpu_folder.sh
to=$(gpu_folder "$K")
to=$(mkdir -p "$to" && cd "$to" && pwd)
mkdir -p "$to"
lib() { find "$peers" -maxdepth 4 -name "$1" -type f | head -1; }
rc=0
run() {
  local name=$1
  shift
  [ "$missing" = 1 ] && [ -f "$to/$name.json" ] && return
  "$K" run --quiet --force --out "$to/$name.json" "$@" || rc=1
}

calib() {
  run calib_aa --cases cases/calib.json --candidate calib.spin --baseline calib.spin_twin --policy 'correct,drift(0.02)'
  # The interval's proof: A/A is never strict, a spin 2 % longer always is.
  run calib_longer --cases cases/calib.json --rows 'spin-1*,spin-2*,spin-5*' --candidate calib.spin \
    --baseline calib.spin_twin,calib.spin_longer --policy cases/policies/calib_aa_longer.json
  run calib_copy_warm --warm --cases cases/calib.json --rows 'copy-*' --candidate calib.spin \
    --baseline calib.spin_twin --policy correct
  run calib_94_cost --cases cases/calib_94.json --candidate calib.spin --baseline calib.spin_twin --policy correct
}

ssu() {
  run ssu_fast_vs_flashinfer_stock --cases cases/ssu.json --candidate ssu.fast \
    --baseline "export:$(lib libkgate_flashinfer_ssu.so):ssu.flashinfer_stock,ssu.floor_copy,ssu.floor" \
    --policy cases/policies/ssu_vs_flashinfer.json
  run ssu_fast_vs_baseline --cases cases/ssu.json --candidate ssu.fast --baseline ssu.baseline --policy correct,strict
  run ssu_fast_source_vs_export --cases cases/ssu.json --candidate ssu.fast \
    --baseline "export:$(lib libkgate_ssu_fast.so):ssu.fast" --policy 'correct,parity,fallback,limit(0.045)'
  ssu_graph
}

# The launch-bound rows (batch <= 8) as a server runs them, every call a CUDA-graph replay, against
# the baselines of ssu_fast_vs_flashinfer_stock.
ssu_graph() {
  run ssu_fast_vs_flashinfer_stock_graph --launch graph --cases cases/ssu.json --rows '*-b1,*-b2,*-b4,*-b8,*-b8-pad' \
    --candidate ssu.fast --baseline "export:$(lib libkgate_flashinfer_ssu.so):ssu.flashinfer_stock,ssu.floor_copy,ssu.floor" \
    --policy cases/policies/ssu_vs_flashinfer.json
}

sparse_mla() {
  run sparse_mla_fast_vs_baseline --cases cases/sparse_mla_94.json --candidate sparse_mla.fast \
    --baseline sparse_mla.baseline,sparse_mla.floor --policy cases/policies/sparse_mla_vs_baseline.json
  run sparse_mla_fast_vs_flashmla --cases cases/sparse_mla_94.json --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' \
    --candidate sparse_mla.fast --baseline "export:$(lib libkgate_flashmla_sparse.so):sparse_mla.flashmla" \
    --policy cases/policies/sparse_mla_vs_flashmla.json
  run sparse_mla_hardening_fast_vs_baseline --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast \
    --baseline sparse_mla.baseline --policy correct,strict
  sparse_mla_graph
}

# The small decode rows (batch 1, 5 query tokens, SWA and SWA + top-k 4x, every head count and dtype)
# as a server runs them, every call a CUDA-graph replay, against the baselines of
# sparse_mla_fast_vs_baseline.
sparse_mla_graph() {
  run sparse_mla_fast_vs_baseline_graph --launch graph --cases cases/sparse_mla_94.json \
    --rows 'mla-*-q5-swa128,mla-*-q5-swa128-topk4x' --candidate sparse_mla.fast \
    --baseline sparse_mla.baseline,sparse_mla.floor --policy cases/policies/sparse_mla_vs_baseline.json
}

ag_gemm() {
  local args=(--cases cases/ag_gemm.json --candidate ag_gemm.overlap --baseline ag_gemm.baseline,ag_gemm.floor
    --policy cases/policies/ag_gemm.json)
  run ag_gemm_overlap_vs_baseline "${args[@]}"
  # Both rank runners at world size 1 seal the single-process rows.
  run ag_gemm_runner_threads_w1 "${args[@]}" --gpus 1
  run ag_gemm_runner_processes_w1 "${args[@]}" --rendezvous "$(mktemp -d)/rendezvous"
  for w in 2 4 8; do
    run ag_gemm_simulated_w$w --cases cases/ag_gemm_simulated.json --rows "w$w-*" --simulate-ranks $w \
      --candidate ag_gemm.overlap --baseline ag_gemm.baseline,ag_gemm.floor,ag_gemm.gather \
      --policy cases/policies/ag_gemm_simulated.json
  done
}

# The tensor family's worked examples (examples/tensor/*.cu), each against the oracle arm its case
# table names (matched by the library's file name, so the libraries may lie anywhere).
tensor() {
  local d=$peers/tensor
  mkdir -p "$d"
  [ -f "$d/libgemm.so" ] || nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -Iharness/export -Ikernels \
    examples/tensor/gemm.cu -o "$d/libgemm.so" -lcublas || rc=1
  [ -f "$d/librmsnorm.so" ] || nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -Iharness/export -Ikernels \
    examples/tensor/rmsnorm.cu -o "$d/librmsnorm.so" || rc=1
  run tensor_gemm_vs_cublas --cases examples/tensor/gemm.json --candidate "export:$d/libgemm.so:gemm.mine" \
    --baseline "export:$d/libgemm.so:gemm.cublas" --policy correct
  run tensor_rmsnorm_vs_double_sums --cases examples/tensor/rmsnorm.json \
    --candidate "export:$d/librmsnorm.so:rmsnorm.mine" --baseline "export:$d/librmsnorm.so:rmsnorm.ref" --policy correct
}

for f in "${families[@]}"; do "$f"; done
echo "campaigns.sh: receipts in $to (exit $rc)"
exit $rc
