#!/usr/bin/env bash
# Session 22, call 5: on top of BF16 partials (main's d2156e9 build, .dev/r22): branch issue14-pdl2 (.dev/p: the combine
# as a programmatic dependent launch, session 21's branch issue14-pdl rebased) and branch issue14-deqgrid (.dev/d: the
# dequantized-once pass with one task a thread, no grid cap); the 28 FlashMLA rows, two runs each, interleaved; p's GPU
# tests.
CALL=s22c5; source scripts/device/plan_ab.sh
for i in 1 2; do
  B=$ROOT/.dev/r22; ab_run "main_$i" KGATE_X=1
  B=$ROOT/.dev/p; ab_run "pdl_$i" KGATE_X=1
  B=$ROOT/.dev/d; ab_run "deq_$i" KGATE_X=1
done
B=$ROOT/.dev/p; ab_gpu_tests
ab_finish
