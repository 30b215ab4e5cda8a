#!/usr/bin/env bash
# Session 19, call 4 (branch issue14-plan2 at 9f55e0b, .dev/n): the plan with its working partitions
# spread over the grid (CTA p x parts / used): d (spread) against q (the queue) and ns
# (KGATE_SPARSE_MLA_WS_SPREAD=0: partition p on CTA p), two rounds, the 28 FlashMLA rows; the GPU tests.
CALL=s19c4; source scripts/device/plan_ab.sh
for i in 1 2; do ab_run q_$i KGATE_SPARSE_MLA_WS_PLAN=0; ab_run d_$i KGATE_X=1; ab_run ns_$i KGATE_SPARSE_MLA_WS_SPREAD=0; done
ab_gpu_tests
ab_finish
