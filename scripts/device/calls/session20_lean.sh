#!/usr/bin/env bash
# Session 20, call 7 (branch issue14-lean): the FP8 producer without per-unit branches, scaling in BF16, against
# main's kernels. Builds carried: .dev/m (aa8b1c5, main's kernels), .dev/ln. The 28 FlashMLA rows, two runs
# each, m ln m ln; then ln's GPU tests and hardening rows (correct).
# (Rewritten onto plan_ab.sh's ab_pair after it ran, with the same commands.)
CALL=s20c7; source scripts/device/plan_ab.sh
ab_pair m .dev/m ln .dev/ln
B=$ROOT/.dev/ln; ab_gpu_tests
ab_hard hard_ln
ab_finish
