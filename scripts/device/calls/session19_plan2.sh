#!/usr/bin/env bash
# Session 19, call 3 (branch issue14-plan2, .dev/n): the plan with the smallest fitting share (a search,
# not FlashMLA's ceil(total / parts) + overhead), partitions at most pairs x half their blocks, only on
# rows the cost model splits. The 28 FlashMLA rows: q (queue), d (plan, overhead 3), d1 and d2 (overhead
# 1, 2), two rounds; then the sparse_mla GPU tests.
CALL=s19c3; source scripts/device/plan_ab.sh
for i in 1 2; do
  ab_run q_$i KGATE_SPARSE_MLA_WS_PLAN=0
  ab_run d_$i KGATE_X=1
  ab_run d1_$i KGATE_SPARSE_MLA_WS_OVERHEAD=1
  ab_run d2_$i KGATE_SPARSE_MLA_WS_OVERHEAD=2
done
ab_gpu_tests
ab_finish
