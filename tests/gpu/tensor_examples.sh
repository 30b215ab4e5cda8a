#!/usr/bin/env bash
# The tensor family on the GPU, as the README's examples run there: examples/tensor/gemm.cu built
# with nvcc against the ABI headers (its tiled kernel against cuBLAS, the oracle), rmsnorm.cu on the
# host example's case table, and the host RMSNorm example refused on the cuda backend with the reason. Receipts are kept under
# $KGATE_GPU_OUT when it is set.
source "$(dirname "$0")/lib_gpu.sh"
command -v nvcc >/dev/null || { echo "skip: no nvcc"; exit 77; }
cd "$WORK"
nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -I"$SRC/harness/export" -I"$SRC/kernels" "$SRC/examples/tensor/gemm.cu" \
  -o libgemm.so -lcublas
check "the GEMM example builds with nvcc" 0 $?
[ "$(wc -l <"$SRC/examples/tensor/gemm.cu")" -lt 60 ]; check "the GEMM example is under 60 lines" 0 $?
"$KGATE" run --backend cuda --quiet --cases "$SRC/examples/tensor/gemm.json" --candidate export:libgemm.so:gemm.mine \
  --baseline export:libgemm.so:gemm.cublas --policy correct --out gemm.json >out.txt 2>&1
check "the tiled kernel against cuBLAS, the oracle" 0 $?
cat out.txt
"$KGATE" audit gemm.json >/dev/null; check "audit" 0 $?
mkdir gpu && (cd gpu && nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -I"$SRC/harness/export" -I"$SRC/kernels" \
  "$SRC/examples/tensor/rmsnorm.cu" -o librmsnorm.so)
check "the CUDA RMSNorm example builds" 0 $?
[ "$(wc -l <"$SRC/examples/tensor/rmsnorm.cu")" -lt 60 ]; check "the CUDA RMSNorm example is under 60 lines" 0 $?
(cd gpu && "$KGATE" run --backend cuda --quiet --cases "$SRC/examples/tensor/rmsnorm.json" --candidate \
  export:librmsnorm.so:rmsnorm.mine --baseline export:librmsnorm.so:rmsnorm.ref --policy correct --out rmsnorm.json) \
  >out.txt 2>&1
check "float sums against the double-sum oracle, on the device" 0 $?
cat out.txt
"$KGATE" audit gpu/rmsnorm.json >/dev/null; check "audit" 0 $?
[ -n "${KGATE_GPU_OUT:-}" ] && mkdir -p "$KGATE_GPU_OUT" && cp gemm*.json gpu/rmsnorm*.json "$KGATE_GPU_OUT"/
cc -O2 -shared -fPIC -I"$SRC/harness/export" -I"$SRC/kernels" "$SRC/examples/tensor/rmsnorm.c" -o librmsnorm.so -lm
"$KGATE" run --backend cuda --quiet --cases "$SRC/examples/tensor/rmsnorm.json" --candidate export:librmsnorm.so:rmsnorm.mine \
  --baseline export:librmsnorm.so:rmsnorm.ref --policy correct --out x.json >host.err 2>&1
check "a host export on the cuda backend is refused" 2 $?
expect_grep "the refusal says why" "a cpu implementation, but this run uses the cuda backend" host.err
finish
