#!/usr/bin/env bash
# Session 19, call 2 (branch issue14-plan2, .dev/n; the knobs KGATE_SPARSE_MLA_WS_GRID / _PARTS of that
# build): why the plan's kernel runs 3-7 us longer than the queue's on rows with the same items (mla-42:
# one pair per CTA either way). Five rows against the floor, two rounds: q (queue), d (plan, 132
# partitions), q132 (queue on 132 CTAs: idle CTAs as the plan has), d80 (plan over 80 partitions).
CALL=s19c2; BASE=sparse_mla.floor; ROWS='mla-42-*,mla-32-*,mla-20-*,mla-10-*,mla-35-*'; source scripts/device/plan_ab.sh
for i in 1 2; do
  ab_run q_$i KGATE_SPARSE_MLA_WS_PLAN=0
  ab_run d_$i KGATE_X=1
  ab_run q132_$i KGATE_SPARSE_MLA_WS_PLAN=0 KGATE_SPARSE_MLA_WS_GRID=132
  ab_run d80_$i KGATE_SPARSE_MLA_WS_PARTS=80
done
ab_finish
