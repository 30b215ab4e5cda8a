#!/usr/bin/env bash
# Session 21, call 10: which lockstep rows the warp-specialized kernel would serve better. Main's build (.dev/x,
# 2110f1d) on the 28 FlashMLA rows with KGATE_SPARSE_MLA_FAST_PATH=ws (every wgmma row on the warp-specialized
# kernel) against the default routing, two runs each, interleaved.
CALL=s21c10; source scripts/device/plan_ab.sh
B=$ROOT/.dev/x
for i in 1 2; do
  ab_run "def_$i" KGATE_X=1
  ab_run "ws_$i" KGATE_SPARSE_MLA_FAST_PATH=ws
done
ab_finish
