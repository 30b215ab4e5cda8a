#!/usr/bin/env bash
# Session 22, call 1: the 2-CTA cluster for the h128 FP8 rows (branch issue14-cluster, build .dev/c). mla-43 alone
# first (a hang would show there, bounded), then the GPU tests, then the 28 FlashMLA rows with the cluster (default)
# and forced off (KGATE_SPARSE_MLA_CLUSTER=0, main's kernel for those rows), two runs each, interleaved; the hardening rows.
CALL=s22c1; source scripts/device/plan_ab.sh
B=$ROOT/.dev/c
ROWS="mla-43-*" ab_run probe43 KGATE_X=1
if ! grep -q "pass policy" "$O/probe43.log"; then tail -20 "$O/probe43.log"; ab_finish; exit 0; fi
ab_gpu_tests
for i in 1 2; do
  ab_run "cl_$i" KGATE_X=1
  ab_run "off_$i" KGATE_SPARSE_MLA_CLUSTER=0
done
ab_hard hard_cl
ab_finish
