#!/usr/bin/env bash
# Session 25, call 2: the receipts of main at 99bb0eb (r23b's kernels, landed, plus the cluster release's __syncwarp),
# carried as .dev/r25 (kgate, kgate_gpu_tests), with racecheck on mla-43 (clustered) and -06 (lockstep) (mla-34,
# planned, dropped when device time ran short) and memcheck on the default rows plus mla-34, -43, -91; three more runs
# of the rows nearest the line. Then, while
# the call has time, an A/B of branch issue14-plancl (.dev/pcl: the length-balanced plan under the 2-CTA cluster,
# forced by KGATE_SPARSE_MLA_WS_PLAN=1 KGATE_SPARSE_MLA_CLUSTER=1; default routes unchanged, one 4-byte spill in the
# cluster producer's loop): its default against r25's on the 28 rows, and the h128 FP8 rows with the plan under the
# cluster (overhead 3 and 2 blocks) and the plan alone (r25). Prediction (NOTES, session 24: ~31 us, honest range
# 29-35): mla-43 33.6 -> ~31 us under the plan and cluster.
# carry: .dev/fm .dev/r25 .dev/pcl
BUILD=r25 TAG=m25 RACE_ROWS="mla-43-* mla-06-*" MEM_MORE=",mla-34-*,mla-43-*,mla-91-*" \
  NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-89-*" bash scripts/device/calls/sparse_mla_receipts_session21.sh
echo "receipts done at ${SECONDS}s"
if [ "$SECONDS" -lt 480 ] && [ -x .dev/pcl/kgate ]; then
  CALL=s25pcl; source scripts/device/plan_ab.sh
  H128='mla-*-fp8-h128-*'
  B=$ROOT/.dev/r25; ab_run r25 KGATE_X=1
  B=$ROOT/.dev/pcl; ab_run pcl KGATE_X=1
  ROWS=$H128 ab_run pcl_p3 KGATE_SPARSE_MLA_WS_PLAN=1 KGATE_SPARSE_MLA_CLUSTER=1
  ROWS=$H128 ab_run pcl_p2 KGATE_SPARSE_MLA_WS_PLAN=1 KGATE_SPARSE_MLA_CLUSTER=1 KGATE_SPARSE_MLA_WS_OVERHEAD=2
  B=$ROOT/.dev/r25; ROWS=$H128 ab_run r25_p3 KGATE_SPARSE_MLA_WS_PLAN=1
  ab_finish
fi
echo "end ${SECONDS}s"
