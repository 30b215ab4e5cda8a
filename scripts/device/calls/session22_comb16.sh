#!/usr/bin/env bash
# Session 22, call 6: branch issue14-comb16 (.dev/k, 278d64b: the combine's splits in one trip for unplanned rows of
# more than 4 splits, K = 16) against main's d2156e9 build (.dev/r22) on the 28 FlashMLA rows, two runs each,
# interleaved; k's GPU tests and the hardening rows.
CALL=s22c6; source scripts/device/plan_ab.sh
ab_pair main .dev/r22 k16 .dev/k
B=$ROOT/.dev/k; ab_gpu_tests; ab_hard hard_k16
ab_finish
