#!/usr/bin/env bash
# Session 17, call 1 (branch issue14-route + the 2-CTA cluster, the build carried as build-dev/c): FP8
# rows of two head groups as 2-CTA clusters (fast_ws.cuh, CL = 2). A smoke run of mla-42 first
# (stops the call on a hang or a wrong answer), GPU tests, the 28 FlashMLA rows with the clusters
# and with KGATE_SPARSE_MLA_FAST_CLUSTER=0, order c n c n, the hardening rows' correctness, and
# memcheck / racecheck on mla-42.
set -uo pipefail
ROOT=$PWD; B=$ROOT/build-dev/c; O=/tmp/s17c1; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/cluster.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
timeout 40 $B/kgate run --cases cases/sparse_mla_94.json --rows 'mla-42-*,mla-89-*' --candidate sparse_mla.fast \
  --baseline sparse_mla.floor --policy correct --out $O/smoke.json > $O/smoke.log 2>&1
rc=$?; echo "smoke rc=$rc: $(grep -E 'pass policy' $O/smoke.log | cut -c1-200)"; tail -5 $O/smoke.log
[ $rc = 0 ] || exit 1
( timeout 150 $B/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
for i in 1 2; do for v in c n; do
  env $([ $v = c ] || echo KGATE_SPARSE_MLA_FAST_CLUSTER=0) timeout 90 $B/kgate run --quiet --cases cases/sparse_mla_94.json \
    --rows 'mla-*-fp8-h64-*,mla-*-fp8-h128-*' --candidate sparse_mla.fast --baseline "$FM" --policy correct \
    --out $O/fm_${v}_$i.json > $O/fm_${v}_$i.log 2>&1
  echo "$v $i rc=$?: $(grep -E 'pass policy' $O/fm_${v}_$i.log | cut -c1-160)"
  python3 scripts/sparse_mla_table.py $O/fm_${v}_$i.json > $O/fm_${v}_$i.txt 2>&1; tail -1 $O/fm_${v}_$i.txt
done; done
timeout 90 $B/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
  --policy correct --out $O/hard.json > $O/hard.log 2>&1; echo "hardening rc=$?: $(grep -E 'pass policy' $O/hard.log | cut -c1-160)"
( OUT=$O timeout 150 bash -c "source scripts/device/env.sh $B; sanitize sanitizer_mla42 cases/sparse_mla_94.json 'mla-42-*' sparse_mla.fast sparse_mla.floor" ); echo "mla-42 sanitize rc=$?"
