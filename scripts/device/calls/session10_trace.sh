#!/usr/bin/env bash
# Session 10, calls 6, 7, 8, 10 and 11 (branch issue13-b1diag, its build carried as .dev/d; the
# branch's kernel diff is receipts/sm_90/logs/ssu_b1diag_branch_session10.patch): per-warp
# timelines at batch 1. The trace arms (kDiagTrace: lane 0 of every warp stamps clock64 at entry,
# after the slot arrives, after the state arrives, after the side inputs arrive, at the end;
# %globaltimer at entry and end; smid) sync after each launch and write the last launch's stamps
# to KGATE_SSU_TRACE_DIR; scripts/ssu_trace_summary.py prints them. Run as
#   call 6:  session10_trace.sh 6 ssu.floor,ssu.r_fast,ssu.r_fastwide,ssu.r_fastreg,ssu.r_floor
#   call 7:  session10_trace.sh 7 ssu.floor,ssu.d_side,ssu.d_sidevec,ssu.d_sideearly,ssu.r_side,ssu.r_sidevec,ssu.r_floor
#            (the side-input chain alone: the small mode with no state read or written)
#   call 8:  session10_trace.sh 8 ssu.floor,ssu.t_share4,ssu.t_share8,ssu.t_share16,ssu.r_share4,ssu.r_share16,ssu.r_fast,ssu.r_floor
#            then session10_diag.sh 9 ssu.floor,ssu.t_share4,ssu.t_share8,ssu.t_share16,ssu.t_early_vec
#   call 10: session10_trace.sh 10 ssu.floor,ssu.d_side,ssu.d_sidespread,ssu.r_side,ssu.r_sidespread,ssu.r_floor
#            (every side pointer in a warp-private window of the pool: no line shared between warps)
#   call 11: session10_trace.sh 11 ssu.floor,ssu.t_async,ssu.r_async,ssu.r_fast,ssu.r_floor
#            then session10_diag.sh 12 ssu.floor,ssu.t_async,ssu.t_early_vec
set -uo pipefail
n=${1:?call number}; arms=${2:?comma-separated arms}
rm -rf /tmp/c$n; O=/tmp/c$n; mkdir -p $O; export KGATE_SOURCE_DIR=$PWD
for row in ssu-nemotron-h-bf16-b1 ssu-granite-like-bf16-b1 ssu-nemotron-h-bf16-b2; do
  mkdir -p $O/$row
  KGATE_SSU_TRACE_DIR=$O/$row timeout 120 .dev/d/kgate run --quiet --cases cases/ssu.json --rows "$row" --candidate ssu.fast \
    --baseline "$arms" --policy correct --out $O/$row/run.json > $O/$row/run.log 2>&1
  echo "$row rc=$?"; .dev/d/kgate report $O/$row/run.json --format wide --anchor ssu.floor 2>&1 | grep -E "^\| ssu" | cut -c1-200
done
python3 scripts/ssu_trace_summary.py $O/ssu-*
tar -C $O -cf $OUT/c$n.tar .
