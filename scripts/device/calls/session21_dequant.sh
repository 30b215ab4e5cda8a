#!/usr/bin/env bash
# Session 21, call 5 (branch issue14-deq, .dev/dq = issue14-piece's producer + the dequantized-once route): the 28
# FlashMLA rows with the route forced on (KGATE_SPARSE_MLA_DEQUANT=1) and off (=0) on every FP8 warp-specialized
# row, and under the default rule; two runs each, interleaved. Then GPU tests and the hardening rows with the
# route forced on (correct).
CALL=${CALL:-s21c5}; source scripts/device/plan_ab.sh
B=$ROOT/.dev/${DQ:-dq}
for i in 1 2; do
  ab_run "on_$i" KGATE_SPARSE_MLA_DEQUANT=1
  ab_run "off_$i" KGATE_SPARSE_MLA_DEQUANT=0
  ab_run "rule_$i" KGATE_X=1
done
KGATE_SPARSE_MLA_DEQUANT=1 ab_gpu_tests
KGATE_SPARSE_MLA_DEQUANT=1 ab_hard hard_on
grep -o '"dequantized_once": *true' "$O/rule_1.json" | wc -l
ab_finish
