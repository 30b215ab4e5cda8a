#!/usr/bin/env bash
# Session 21, call 1: the FP8 producer's RoPE pieces by cp.async counted on the full barrier (branch issue14-rope,
# .dev/ro), and that plus indices two blocks ahead and per-piece reloads (branch issue14-piece, .dev/pc), against
# main's kernels (8c5c9cd's build, .dev/r). The 28 FlashMLA rows, two runs each, r pc ro r pc ro; then each
# variant's GPU tests and hardening rows (correct).
CALL=s21c1; source scripts/device/plan_ab.sh
for i in 1 2; do
  for b in r pc ro; do B=$ROOT/.dev/$b; ab_run "${b}_$i" KGATE_X=1; done
done
for b in pc ro; do
  B=$ROOT/.dev/$b; ab_gpu_tests; mv "$O/gpu_tests.log" "$O/gpu_tests_$b.log"; ab_hard "hard_$b"
done
ab_finish
