#!/usr/bin/env bash
# Session 20, call 9 (branch issue14-intdq): FP8 dequant by integer bit moves instead of F2FP conversions,
# against main (8c5c9cd, carried as .dev/r). .dev/iq: the branch. The 28 FlashMLA rows, two runs each,
# r iq r iq; then iq's GPU tests and hardening rows (correct).
CALL=s20c9; source scripts/device/plan_ab.sh
for i in 1 2; do
  B=$ROOT/.dev/r; ab_run r_$i KGATE_X=1
  B=$ROOT/.dev/iq; ab_run iq_$i KGATE_X=1
done
B=$ROOT/.dev/iq; ab_gpu_tests
ab_hard hard_iq
ab_finish
