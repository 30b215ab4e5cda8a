#!/usr/bin/env bash
# Session 22, call 3: the cluster with remote arrivals at the default .cta scope and the producer at 136 registers
# (.dev/c3, branch issue14-cluster) against the cluster off (same build), the h128 FP8 warp-specialized rows, two
# runs each, interleaved; its cluster GPU test. Then branch issue14-bf16part (.dev/b, BF16 partials) against main
# de42727 (.dev/m) on the 28 FlashMLA rows (call 2 ran them on 3 rows only), two runs each, interleaved.
CALL=s22c3; source scripts/device/plan_ab.sh
B=$ROOT/.dev/c3
ROWS="mla-43-*" ab_run probe43 KGATE_X=1
if ! grep -q "pass policy" "$O/probe43.log"; then tail -20 "$O/probe43.log"; ab_finish; exit 0; fi
timeout 100 "$B/kgate_gpu_tests" --gtest_filter='*SparseMlaCluster*' > "$O/gpu_tests_c3.log" 2>&1
echo "c3 gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$O/gpu_tests_c3.log" | tr '\n' ' ')"
ROWS='mla-32-*,mla-33-*,mla-34-*,mla-42-*,mla-43-*,mla-46-*,mla-47-*'
for i in 1 2; do
  ab_run "cl3_$i" KGATE_X=1
  ab_run "off_$i" KGATE_SPARSE_MLA_CLUSTER=0
done
ROWS='mla-*-fp8-h64-*,mla-*-fp8-h128-*'
ab_pair main .dev/m bf16p .dev/b
ab_finish
