#!/usr/bin/env bash
# Written in session 23, when no device was lent: the first call of the next session that has one. Builds to carry
# (each a folder with kgate and kgate_gpu_tests, made here from the branch's head):
#   .dev/r22b  aeb2600: main's kernels, those of the committed receipts
#   .dev/r23a  branch issue14-r23a: issue14-deqorder merged onto main (the dequant pass's first CTA computes the sorted
#              queue's token order; 64-bit MODEL1 offsets; one fast_route; shared-memory limits raised per device)
#   .dev/r23b  branch issue14-r23b: r23a plus issue14-cluster2 (the 2-CTA cluster for the unplanned FP8 rows of two
#              64-head groups: mla-33, -42, -43 of the 28)
#   .dev/r23c  branch issue14-r23c: r23b plus issue14-wgcluster (the lockstep kernel's 2-8 splits merged in their
#              cluster through DSMEM, no combine kernel: mla-06, -09, -21, -30, -45 of the 28)
#   .dev/fm    the FlashMLA export
# carry (52 MiB; the last build that passes its probe runs its GPU tests): .dev/fm .dev/r22b/kgate .dev/r23a .dev/r23b
#   .dev/r23c
# In order of need: a probe of r23b's and r23c's new paths (a build that fails it drops out); the last build's GPU tests
# (r23c's: the merge, the cluster and the deqorder rows); the 28 FlashMLA rows, two runs each
# of r22b, r23a, r23b and r23c, interleaved; r23c's hardening rows; r23c with five splits forced on the rows of 9-10
# splits (so they merge), and with the lockstep kernel forced on the warp-specialized rows that pay a combine; memcheck
# of r23c on a merged and a clustered row;
# racecheck of the same while time is left. Predictions (NOTES, "No device lent ..."): r23a = r22b but mla-89, -91, -93
# ~1.8 us shorter; r23b = r23a but mla-43 ~36.6 -> ~34.6 us; r23c = r23b but the merged rows lose most of their
# combine (mla-06 8.1 + 2.0 -> ~8.7 us).
CALL=s23ab; source scripts/device/plan_ab.sh
# Probes first (30 s each, against the floor): a build whose new path fails or hangs drops out of what follows.
probe() {  # NAME BUILD ROWS
  timeout 30 "$ROOT/.dev/$2/kgate" run --quiet --cases cases/sparse_mla_94.json --rows "$3" --candidate sparse_mla.fast \
    --baseline sparse_mla.floor --policy correct --out "$O/probe_$1.json" > "$O/probe_$1.log" 2>&1
  local rc=$?
  echo "probe $1 ($2: $3) rc=$rc: $(grep -E 'pass policy' "$O/probe_$1.log" | cut -c1-140)"
  return $rc
}
BUILDS="r22b r23a"
probe b r23b 'mla-42-*,mla-43-*' && BUILDS="$BUILDS r23b"
probe c r23c 'mla-06-*,mla-43-*' && BUILDS="$BUILDS r23c"
LAST=${BUILDS##* }; B=$ROOT/.dev/$LAST; ab_gpu_tests
for i in 1 2; do
  for b in $BUILDS; do B=$ROOT/.dev/$b; ab_run "${b}_$i" KGATE_X=1; done
done
B=$ROOT/.dev/$LAST; ab_hard "hard_$LAST"
if [ "$LAST" = r23c ]; then
  # A first look at the merge for the rows the cost model splits 9-10 ways (past a portable cluster; they keep the
  # combine): five splits forced, so they merge.
  ROWS='mla-07-*,mla-08-*,mla-22-*,mla-31-*' ab_run c_s5 KGATE_SPARSE_MLA_FAST_SPLITS=5
  # And for the warp-specialized rows that pay a combine (the plan or the queue split them): the lockstep kernel
  # forced, whose splits then merge where the model picks 2-8 (NOTES, "No device lent ...": the combine is 3.3-5 us
  # of them).
  ROWS='mla-10-*,mla-11-*,mla-19-*,mla-23-*,mla-32-*,mla-34-*,mla-46-*,mla-47-*' ab_run c_wg KGATE_SPARSE_MLA_FAST_PATH=wg
  # The model (which still charges a combine) keeps mla-18 and -33 (two blocks a pair) unsplit on the lockstep kernel:
  # two splits forced.
  ROWS='mla-18-*,mla-33-*' ab_run c_wg2 KGATE_SPARSE_MLA_FAST_PATH=wg KGATE_SPARSE_MLA_FAST_SPLITS=2
fi
FM=$BASE; source scripts/device/sparse_mla_checks.sh
mla_memcheck 'mla-06-*,mla-43-*'
if [ "$SECONDS" -lt 420 ]; then
  timeout 140 bash scripts/device/racecheck_rows.sh "$B" "$O/racecheck" cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 70 \
    'mla-06-*' 'mla-43-*'
fi
ab_finish
