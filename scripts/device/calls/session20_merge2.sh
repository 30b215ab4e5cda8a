#!/usr/bin/env bash
# Session 20, call 4 (branch issue14-merge): the lockstep kernel's split rows merged in the kernel (own
# accumulators in registers) against main's kernels. Builds carried: .dev/m (aa8b1c5, main's kernels),
# .dev/mg3 (default: up to 4 splits merged; KGATE_SPARSE_MLA_MERGE=2: up to 2; =0: the combine kernel).
# The 28 FlashMLA rows, two runs each, interleaved; then mg3's GPU tests and hardening rows (correct).
# (Rewritten onto plan_ab.sh's ab_hard after it ran, with the same commands.)
CALL=s20c4; source scripts/device/plan_ab.sh
for i in 1 2; do
  B=$ROOT/.dev/m; ab_run m_$i KGATE_X=1
  B=$ROOT/.dev/mg3; ab_run g4_$i KGATE_X=1
  B=$ROOT/.dev/mg3; ab_run g2_$i KGATE_SPARSE_MLA_MERGE=2
  B=$ROOT/.dev/mg3; ab_run g0_$i KGATE_SPARSE_MLA_MERGE=0
done
B=$ROOT/.dev/mg3; ab_gpu_tests
ab_hard hard_g4
ab_finish
