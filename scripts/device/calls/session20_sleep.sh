#!/usr/bin/env bash
# Session 20, call 8 (branch issue14-sleep): the warp-specialized kernel's mbarrier waits with a suspend-time
# hint, against main (8c5c9cd, carried as .dev/r). .dev/sl: the branch. The 28 FlashMLA rows, two runs each,
# r sl r sl; then sl's GPU tests and hardening rows (correct).
# (Rewritten onto plan_ab.sh's ab_pair after it ran, with the same commands.)
CALL=s20c8; source scripts/device/plan_ab.sh
ab_pair r .dev/r sl .dev/sl
B=$ROOT/.dev/sl; ab_gpu_tests
ab_hard hard_sl
ab_finish
