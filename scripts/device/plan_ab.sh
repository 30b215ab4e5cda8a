# Sourced by the session 19 and 20 call scripts (scripts/device/calls/session19_*.sh, session20_*.sh; some were rewritten onto
# this helper after they ran, with the same commands). Needs CALL (the output folder's name) and, for
# ab_run, BASE (default: FlashMLA's export carried as .dev/fm) and ROWS (default: the 28 FlashMLA rows).
# ab_run NAME ENV...: sparse_mla.fast under ENV on ROWS of cases/sparse_mla_94.json against BASE, policy
# correct; $O/NAME.json, .log, .txt (scripts/sparse_mla_table.py) and its verdict and geomean lines.
# ab_gpu_tests: the sparse_mla and FlashMLA-export GPU tests. ab_probe NAME BUILD ROWS: a 30 s run that a build whose
# new path fails or hangs does not pass. ab_pair: a two-build A/B. ab_builds BUILD...: two interleaved runs of each
# .dev/BUILD, then the per-kernel medians. ab_hard NAME: the hardening rows (correct).
# ab_trace BUILD ROW NAME: a run of mla-ROW on .dev/BUILD (a ws_trace.py build) with its clock64 stamps in $O/NAME.txt.
# ab_finish: the per-kernel medians
# (scripts/sparse_mla_kernel_table.py) and $OUT/$CALL.tgz.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/$CALL; rm -rf "$O"; mkdir -p "$O"; export KGATE_SOURCE_DIR=$ROOT
export FM_LIB=$ROOT/.dev/fm/libkgate_flashmla_sparse.so  # exported: h200_sparse_mla.sh reads it (session 27's call lost its FlashMLA receipt without)
BASE=${BASE:-export:$FM_LIB:sparse_mla.flashmla}
ROWS=${ROWS:-mla-*-fp8-h64-*,mla-*-fp8-h128-*}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$O/gpu.txt" 2>&1
ab_run() {
  local name=$1; shift
  env "$@" timeout 100 "$B/kgate" run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate sparse_mla.fast \
    --baseline "$BASE" --policy correct --out "$O/$name.json" > "$O/$name.log" 2>&1
  echo "$name rc=$?: $(grep -E 'pass policy' "$O/$name.log" | cut -c1-160)"
  python3 scripts/sparse_mla_table.py "$O/$name.json" > "$O/$name.txt" 2>&1; tail -1 "$O/$name.txt" | cut -c1-230
}
ab_gpu_tests() {
  KGATE_FLASHMLA_EXPORT=$FM_LIB timeout 150 "$B/kgate_gpu_tests" --gtest_filter='*SparseMla*:*FlashMla*' > "$O/gpu_tests.log" 2>&1
  echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$O/gpu_tests.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]|Failure' "$O/gpu_tests.log" | head -8
}
ab_pair() {  # NAME1 BUILD1 NAME2 BUILD2: two runs each, interleaved (1 2 1 2), as ab_run under no extra env
  local i
  for i in 1 2; do
    B=$ROOT/$2; ab_run "$1_$i" KGATE_X=1
    B=$ROOT/$4; ab_run "$3_$i" KGATE_X=1
  done
}
ab_builds() {  # BUILD...: two rounds, each a run of every .dev/BUILD as BUILD_<round> (ab_run), then kernel_medians.txt
  local i b
  for i in 1 2; do
    for b in "$@"; do B=$ROOT/.dev/$b; ab_run "${b}_$i" KGATE_X=1; done
  done
  python3 scripts/sparse_mla_kernel_table.py "$O" > "$O/kernel_medians.txt" 2>&1
}
ab_probe() {  # NAME BUILD ROWS: 30 s of sparse_mla.fast of .dev/BUILD on ROWS against the floor (policy correct); its rc
  timeout 30 "$ROOT/.dev/$2/kgate" run --quiet --cases cases/sparse_mla_94.json --rows "$3" --candidate sparse_mla.fast \
    --baseline sparse_mla.floor --policy correct --out "$O/probe_$1.json" > "$O/probe_$1.log" 2>&1
  local rc=$?
  echo "probe $1 ($2: $3) rc=$rc: $(grep -E 'pass policy' "$O/probe_$1.log" | cut -c1-140)"
  return $rc
}
ab_hard() {  # NAME: the hardening rows, sparse_mla.fast against the baseline, policy correct
  timeout 120 "$B/kgate" run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast \
    --baseline sparse_mla.baseline --policy correct --out "$O/$1.json" > "$O/$1.log" 2>&1
  echo "hardening $1 rc=$?: $(grep -E 'pass policy' "$O/$1.log" | cut -c1-160)"
}
ab_trace() {  # BUILD ROW NAME
  KGATE_WS_TRACE_FILE=$O/$3.txt timeout 40 "$ROOT/.dev/$1/kgate" run --quiet --cases cases/sparse_mla_94.json \
    --rows "mla-$2-*" --candidate sparse_mla.fast --baseline sparse_mla.floor --policy correct --out "$O/$3.json" \
    > "$O/$3.log" 2>&1
  echo "trace $1 mla-$2 rc=$?: $(grep -E 'pass policy' "$O/$3.log" | cut -c1-120)"
}
# ab_receipts PICK TAG MEM_BEFORE RACE_BEFORE PATCH...: the receipts of .dev/PICK with its PATCHes applied to this tree
# (the receipts digest the kernel sources; their sha256 in $O/tree_kernels.sha256), as sparse_mla_receipts_session21.sh
# without its sanitizers (its output $OUT/TAG.tar), then `save` (the caller's), then memcheck and racecheck on a few
# rows if the call's SECONDS are below MEM_BEFORE and RACE_BEFORE. The tail of session28b.sh and session29.sh.
ab_receipts() {
  local pick=$1 tag=$2 mem_before=$3 race_before=$4 f
  shift 4
  for f in "$@"; do git apply "$f" || echo "could not apply $f"; done
  sha256sum kernels/sparse_mla/*.cuh kernels/sparse_mla/*.cu > "$O/tree_kernels.sha256"
  echo "receipts of $pick" | tee -a "$O/pick.txt"
  SANITIZE=0 BUILD=$pick TAG=$tag NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-87-*,mla-89-*" \
    bash scripts/device/calls/sparse_mla_receipts_session21.sh
  save
  B=$ROOT/.dev/$pick; source scripts/device/sparse_mla_checks.sh
  [ "$SECONDS" -lt "$mem_before" ] && mla_memcheck "mla-34-*,mla-43-*,mla-87-*,mla-89-*"
  [ "$SECONDS" -lt "$race_before" ] && timeout 100 bash scripts/device/racecheck_rows.sh "$B" "$O/racecheck" \
    cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 45 'mla-34-*' 'mla-43-*'
}
ab_finish() {
  python3 scripts/sparse_mla_kernel_table.py "$O"
  rm -f "$O"/*.json.*; tar -C "$O" -czf "$OUT/$CALL.tgz" .
}
