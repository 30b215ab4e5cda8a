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
#   .dev/r23d  branch issue14-r23d: r23c plus issue14-wgroute (FP8 rows of at most 66 (token, group) pairs that the
#              warp-specialized kernel would run move to the merged lockstep kernel: mla-10, -11, -18, -19, -23, -32,
#              -33, -34, -46, -47 of the 28)
#   .dev/fm    the FlashMLA export
#   .dev/pre   branch issue14-diag-prelude: main's kernels plus KGATE_SPARSE_MLA_PRELUDE (session 24: the carryover taken
#              apart, kernels/sparse_mla/NOTES.md "The carryover")
# carry: .dev/fm .dev/s24.tar.xz. The working tree (13.9 MiB) and the carry share 64 MiB, and the ten binaries are
#   78 MB raw, so they travel as one xz archive (10.3 MB), made here by
#   tar -C .dev -cf - r22b/kgate r23a/kgate r23a/kgate_gpu_tests r23b/kgate r23b/kgate_gpu_tests r23c/kgate \
#     r23c/kgate_gpu_tests r23d/kgate r23d/kgate_gpu_tests pre/kgate | xz -6 -T2 > .dev/s24.tar.xz
#   and unpacked first below. (Session 23 wrote "carry (54 MiB): .dev/fm .dev/r22b/kgate ... .dev/r23d": with the tree that
#   is 68 MiB, over the limit; the call would have been refused.)
# In order of need: a probe of r23b's, r23c's and r23d's new paths (a build that fails it drops out); the last build's
# GPU tests (r23d's: the merge and its reroute, the cluster and the deqorder rows); the 28 FlashMLA rows, two runs each
# of r22b, r23a, r23b, r23c and r23d, interleaved; the last build's hardening rows; five splits forced on the rows of
# 9-10 splits (so they merge); memcheck of the last build on a merged, a rerouted and a clustered row; racecheck of
# the same while time is left. Predictions (NOTES, "No device lent ..."): r23a = r22b but mla-89, -91, -93
# ~1.8 us shorter; r23b = r23a but mla-43 ~36.6 -> ~34.6 us; r23c = r23b but the merged rows lose most of their
# combine (mla-06 8.1 + 2.0 -> ~8.7 us); r23d = r23c but the rerouted rows shorter (mla-18 13.2 -> ~9.5 us, mla-19
# 25.3 -> ~20, mla-46 16.2 -> ~13), mla-23 and -32 (60 CTAs of three blocks) level or longer.
if [ -f .dev/s24.tar.xz ]; then
  tar -C .dev -xJf .dev/s24.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/s24.tar.xz').extractall('.dev')"
fi
CALL=s23ab; source scripts/device/plan_ab.sh
# Probes first (30 s each, against the floor): a build whose new path fails or hangs drops out of what follows.
BUILDS="r22b r23a"
ab_probe b r23b 'mla-42-*,mla-43-*' && BUILDS="$BUILDS r23b"
ab_probe c r23c 'mla-06-*,mla-43-*' && BUILDS="$BUILDS r23c"
ab_probe d r23d 'mla-18-*,mla-34-*' && BUILDS="$BUILDS r23d"
LAST=${BUILDS##* }; B=$ROOT/.dev/$LAST; ab_gpu_tests
for i in 1 2; do
  for b in $BUILDS; do B=$ROOT/.dev/$b; ab_run "${b}_$i" KGATE_X=1; done
done
B=$ROOT/.dev/$LAST; ab_hard "hard_$LAST"
if [ "$LAST" = r23c ] || [ "$LAST" = r23d ]; then
  # A first look at the merge for the rows the cost model splits 9-10 ways (past a portable cluster; they keep the
  # combine): five splits forced, so they merge.
  ROWS='mla-07-*,mla-08-*,mla-22-*,mla-31-*' ab_run "${LAST}_s5" KGATE_SPARSE_MLA_FAST_SPLITS=5
fi
# A checkpoint of everything so far (the sanitizers may run past the call's limit; ab_finish rewrites it whole).
python3 scripts/sparse_mla_kernel_table.py "$O" > /dev/null 2>&1; tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' .
# The carryover taken apart (session 24; .dev/pre): the ws kernel's own time (the kernel table's medians) on mla-34,
# -42, -89 and the lockstep mla-06, with nothing before it in the arm's call, or 128 KB of straight-line code (`code`),
# the same grid doing nothing (`empty`), the split-KV baseline's launch shape doing nothing (`smem`), or the baseline
# itself and a flush (`baseline`); against the floor, after which the receipts show no carryover. +5-8 us under `code`
# alone means instruction fetch; under `empty` too, the launch or the CTAs' placement; under `smem`, the SM's set-up.
if [ "$SECONDS" -lt 420 ] && [ -x "$ROOT/.dev/pre/kgate" ]; then
  B=$ROOT/.dev/pre
  for m in none code empty smem baseline; do
    BASE=sparse_mla.floor ROWS='mla-06-*,mla-34-*,mla-42-*,mla-89-*' ab_run "pre_$m" "KGATE_SPARSE_MLA_PRELUDE=${m#none}"
  done
  B=$ROOT/.dev/$LAST
  python3 scripts/sparse_mla_kernel_table.py "$O" > /dev/null 2>&1; tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' .
fi
FM=$BASE; source scripts/device/sparse_mla_checks.sh
[ "$SECONDS" -lt 430 ] && mla_memcheck 'mla-06-*,mla-18-*,mla-43-*'
if [ "$SECONDS" -lt 380 ]; then
  timeout 140 bash scripts/device/racecheck_rows.sh "$B" "$O/racecheck" cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 70 \
    'mla-06-*' 'mla-43-*'
fi
ab_finish
