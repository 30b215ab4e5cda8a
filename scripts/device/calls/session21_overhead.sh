#!/usr/bin/env bash
# Session 21, call 12: the length-balanced plan's fixed cost per segment (KGATE_SPARSE_MLA_WS_OVERHEAD, default 3
# blocks; session 19 measured 1-3) now that a block step is shorter: 3, 5 and 8 on the 28 FlashMLA rows, main's build
# (.dev/y, d821e3b), two runs each, interleaved. Only the planned rows (split rows of fewer than 2 x SMs pairs) move.
CALL=s21c12; source scripts/device/plan_ab.sh
B=$ROOT/.dev/y
for i in 1 2; do
  for o in 3 5 8; do ab_run "o${o}_$i" KGATE_SPARSE_MLA_WS_OVERHEAD=$o; done
done
ab_finish
