#!/usr/bin/env bash
# Written in session 23, when no device was lent: the first call of the next session that has one. Builds to carry
# (each a folder with kgate and kgate_gpu_tests, made here from the branch's head):
#   .dev/r22b  aeb2600: main's kernels, those of the committed receipts
#   .dev/r23a  branch issue14-r23a: issue14-deqorder merged onto main (the dequant pass's first CTA computes the sorted
#              queue's token order; 64-bit MODEL1 offsets; one fast_route for fast_config and launch_fast)
#   .dev/r23b  branch issue14-r23b: r23a plus issue14-cluster2 (the 2-CTA cluster for the unplanned FP8 rows of two
#              64-head groups: mla-33, -42, -43 of the 28)
#   .dev/fm    the FlashMLA export
# In order of need: r23b's GPU tests (its cluster test and the deqorder row); the 28 FlashMLA rows, two runs each of
# r22b, r23a and r23b, interleaved; r23b with the cluster forced off, on the h128 rows it touches; r23b's hardening rows;
# memcheck, then racecheck, of r23b's cluster rows. Predictions (NOTES, "No device ..."): r23a = r22b but mla-89, -91,
# -93 ~1.8 us shorter (no order kernel); r23b = r23a but mla-43 ~36.6 -> ~34.6 us and mla-42 level or shorter.
CALL=s23ab; source scripts/device/plan_ab.sh
B=$ROOT/.dev/r23b; ab_gpu_tests
for i in 1 2; do
  B=$ROOT/.dev/r22b; ab_run "main_$i" KGATE_X=1
  B=$ROOT/.dev/r23a; ab_run "a_$i" KGATE_X=1
  B=$ROOT/.dev/r23b; ab_run "b_$i" KGATE_X=1
done
B=$ROOT/.dev/r23b; ROWS='mla-33-*,mla-42-*,mla-43-*' ab_run boff KGATE_SPARSE_MLA_CLUSTER=0
ab_hard hard_b
FM=$BASE; source scripts/device/sparse_mla_checks.sh
mla_memcheck 'mla-42-*,mla-43-*'
timeout 150 bash scripts/device/racecheck_rows.sh "$B" "$O/racecheck" cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 70 \
  'mla-42-*' 'mla-43-*'
ab_finish
