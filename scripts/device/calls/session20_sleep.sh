#!/usr/bin/env bash
# Session 20, call 8 (branch issue14-sleep): the warp-specialized kernel's mbarrier waits with a suspend-time
# hint, against main (8c5c9cd, carried as .dev/r). .dev/sl: the branch. The 28 FlashMLA rows, two runs each,
# r sl r sl; then sl's GPU tests and hardening rows (correct).
CALL=s20c8; source scripts/device/plan_ab.sh
for i in 1 2; do
  B=$ROOT/.dev/r; ab_run r_$i KGATE_X=1
  B=$ROOT/.dev/sl; ab_run sl_$i KGATE_X=1
done
B=$ROOT/.dev/sl; ab_gpu_tests
ab_hard hard_sl
ab_finish
