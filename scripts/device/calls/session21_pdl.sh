#!/usr/bin/env bash
# Session 21, call 8 (branch issue14-pdl, .dev/pl): sparse_mla_fast_combine_kernel as a programmatic dependent launch
# (the main kernels trigger at their start; the combine waits for their memory before reading the partials) against
# main's build (.dev/x, 2110f1d). The 28 FlashMLA rows, two runs each, x pl x pl; the hardening rows against the
# baseline for both (correct); pl's GPU tests.
CALL=s21c8; source scripts/device/plan_ab.sh
ab_pair x .dev/x pl .dev/pl
for b in x pl; do B=$ROOT/.dev/$b; ab_hard "hard_$b"; done
B=$ROOT/.dev/pl; ab_gpu_tests
ab_finish
