#!/usr/bin/env bash
# Session 16, call 3 (branch issue14-route, the build carried as .dev/n): the routing between the
# lockstep (fast_wg.cuh) and the warp-specialized (fast_ws.cuh) kernels re-measured on today's
# kernels: the 58 h64/h128 rows against the floor at the default routing and with
# KGATE_SPARSE_MLA_FAST_PATH=wg and =ws (every wgmma row forced onto one kernel), order d wg ws d wg ws.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/s16c3; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
for i in 1 2; do for v in d wg ws; do
  env $([ $v = d ] || echo KGATE_SPARSE_MLA_FAST_PATH=$v) timeout 80 $B/kgate run --quiet --cases cases/sparse_mla_94.json \
    --rows 'mla-*-h64-*,mla-*-h128-*' --candidate sparse_mla.fast --baseline sparse_mla.floor --policy correct \
    --out $O/path_${v}_$i.json > $O/path_${v}_$i.log 2>&1
  echo "$v $i rc=$?: $(grep -E 'pass policy' $O/path_${v}_$i.log | cut -c1-160)"
done; done
tar -C $O -cf $OUT/route.tar .
