#!/usr/bin/env bash
# Session 10, calls 1, 2 and 4 (branch issue13-b1diag, its build carried as .dev/d; the branch's
# kernel diff is receipts/sm_90/logs/ssu_b1diag_branch_session10.patch): ssu.fast against the
# floor and probe arms on the BF16 batch <= 8 rows, two runs, one tar back. Run as
#   call 1: session10_diag.sh 1 ssu.floor,ssu.d_keep,ssu.d_cw,ssu.d_cbcx,ssu.d_nomath,ssu.t_early,ssu.t_early_vec
#           (diagnostics: which side inputs cost the ~0.7 us; d_call was dropped after its
#           illegal instruction, a ptxas bug, kernels/ssu/NOTES.md)
#   call 2: session10_diag.sh 2 ssu.floor,ssu.t_share4,ssu.t_share8,ssu.t_share16,ssu.t_plain16,ssu.t_early_vec
#           (side inputs once per CTA through shared memory)
#   call 4: session10_diag.sh 4 ssu.floor,ssu.t_reg,ssu.t_regvec,ssu.t_regearlyvec,ssu.d_regkeep,ssu.t_early_vec
#           (the state in registers instead of cp.async staging)
#   call 9 (in call 8): session10_diag.sh 9 ssu.floor,ssu.t_share4,ssu.t_share8,ssu.t_share16,ssu.t_early_vec
#   call 12 (in call 11): session10_diag.sh 12 ssu.floor,ssu.t_async,ssu.t_early_vec
#   call 13: session10_diag.sh 13 ssu.floor,ssu.d_floorx1,ssu.d_floorx2,ssu.d_side
#           (the floor plus one extra load per warp, from the side page or far in the pool)
set -uo pipefail
n=${1:?call number}; arms=${2:?comma-separated arms}
rm -rf /tmp/c$n; O=/tmp/c$n; mkdir -p $O; export KGATE_SOURCE_DIR=$PWD
ROWS='ssu-*-bf16-b1,ssu-*-bf16-b2,ssu-*-bf16-b4,ssu-*-bf16-b8'
for i in 1 2; do
  timeout 200 .dev/d/kgate run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast --baseline "$arms" \
    --policy correct --out $O/diag_$i.json > $O/diag_$i.log 2>&1
  echo "run $i rc=$?"; tail -3 $O/diag_$i.log
  .dev/d/kgate report $O/diag_$i.json --format wide --anchor ssu.floor > $O/diag_$i.wide.txt 2>&1
  head -40 $O/diag_$i.wide.txt
done
rm -f $O/*.samples.json; tar -C $O -cf $OUT/c$n.tar .
