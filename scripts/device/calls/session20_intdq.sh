#!/usr/bin/env bash
# Session 20, call 9 (branch issue14-intdq): FP8 dequant by integer bit moves instead of F2FP conversions,
# against main (8c5c9cd, carried as .dev/r). .dev/iq: the branch. The 28 FlashMLA rows, two runs each,
# r iq r iq; then iq's GPU tests and hardening rows (correct).
# (Rewritten onto plan_ab.sh's ab_pair after it ran, with the same commands.)
CALL=s20c9; source scripts/device/plan_ab.sh
ab_pair r .dev/r iq .dev/iq
B=$ROOT/.dev/iq; ab_gpu_tests
ab_hard hard_iq
ab_finish
