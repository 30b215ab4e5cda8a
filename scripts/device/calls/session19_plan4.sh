#!/usr/bin/env bash
# Session 19, call 7 (branch issue14-plan2, .dev/n): the plan's partials in the queue's layout and one
# combine kernel (call 6: four splits' o read before the count; call 7: two). d (plan) against q (the
# queue), two rounds, the 28 FlashMLA rows; the GPU tests.
CALL=s19c7; source scripts/device/plan_ab.sh
for i in 1 2; do ab_run q_$i KGATE_SPARSE_MLA_WS_PLAN=0; ab_run d_$i KGATE_X=1; done
ab_gpu_tests
ab_finish
