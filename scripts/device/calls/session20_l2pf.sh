#!/usr/bin/env bash
# Session 20, call 1 (branch issue14-l2pf): the FP8 producer's L2 prefetch of block k + 2's rows, and
# FlashMLA's L1::evict_last load hint, against main's kernels. Builds carried: .dev/m (aa8b1c5, main's
# kernels), .dev/pf (prefetch), .dev/el (the hint), .dev/pfel (both). The 28 FlashMLA rows, two runs
# each, m pf el pfel interleaved; then the prefetch build's GPU tests and its hardening rows (correct).
# (Rewritten onto plan_ab.sh's ab_hard after it ran, with the same commands.)
CALL=s20c1; source scripts/device/plan_ab.sh
for i in 1 2; do
  for v in m pf el pfel; do B=$ROOT/.dev/$v; ab_run ${v}_$i KGATE_X=1; done
done
B=$ROOT/.dev/pf; ab_gpu_tests
ab_hard hard_pf
ab_finish
