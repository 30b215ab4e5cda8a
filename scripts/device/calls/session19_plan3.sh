#!/usr/bin/env bash
# Session 19, call 6 (branch issue14-plan2, .dev/n): the plan's partials in the queue's layout and one
# combine kernel (call 6: four splits' o read before the count; call 7: two). d (plan) against q (the
# queue), two rounds, the 28 FlashMLA rows; the GPU tests; the 94 and hardening rows against the baseline.
CALL=s19c6; source scripts/device/plan_ab.sh
for i in 1 2; do ab_run q_$i KGATE_SPARSE_MLA_WS_PLAN=0; ab_run d_$i KGATE_X=1; done
ab_gpu_tests
BASE=sparse_mla.baseline; ROWS='*'; ab_run sparse_mla_94 KGATE_X=1
timeout 100 $B/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
  --policy correct,strict --out $O/sparse_mla_hardening.json > $O/sparse_mla_hardening.log 2>&1
echo "sparse_mla_hardening rc=$?: $(grep -E 'pass policy' $O/sparse_mla_hardening.log | cut -c1-160)"
ab_finish
