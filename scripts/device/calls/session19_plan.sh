#!/usr/bin/env bash
# Session 19, call 1 (branch issue14-plan2, the build carried as .dev/n, FlashMLA's export as .dev/fm):
# the warp-specialized kernel's length-balanced plan (kernels/sparse_mla/ws_plan.hpp). 1. the sparse_mla
# GPU tests with the export; 2. the 28 FlashMLA rows, plan as routed (d) against the plan forced off (o,
# KGATE_SPARSE_MLA_WS_PLAN=0: the queue of equal splits, main's path), order d o d o; 3. the overhead at 1
# and 6 blocks (one run each); 4. the 94 rows and the hardening rows against the baseline.
CALL=s19c1; source scripts/device/plan_ab.sh
ab_gpu_tests
for i in 1 2; do ab_run d_$i KGATE_X=1; ab_run o_$i KGATE_SPARSE_MLA_WS_PLAN=0; done
ab_run ov1 KGATE_SPARSE_MLA_WS_OVERHEAD=1
ab_run ov6 KGATE_SPARSE_MLA_WS_OVERHEAD=6
BASE=sparse_mla.baseline; ROWS='*'; ab_run base94 KGATE_X=1
for f in hard; do  # the hardening table, the same way
  timeout 100 $B/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
    --policy correct,strict --out $O/$f.json > $O/$f.log 2>&1
  echo "hardening rc=$?: $(grep -E 'pass policy' $O/$f.log | cut -c1-200)"
done
ab_finish
