#!/usr/bin/env bash
# Session 27: the A/B of session26_probe.sh and the receipts of its winner in one call. This session's first hour
# got no device start (each failed start cost 90 s of the 30 min), so the two calls session 26 planned became one.
# Made here first: bash scripts/device/pending/build.sh (rc, oc, cr, c2, cro, c2o, tr, t2 -> .dev/s26.tar.xz; the
# tree left as main + issue14-racecl.patch) and the FlashMLA export as .dev/fm. carry: [".dev/fm", ".dev/s26.tar.xz"].
# 1. 30 s probes of cr and c2 on mla-42 and -43 (a build that fails or hangs drops out).
# 2. The 28 FlashMLA rows, rc, oc, cr, c2 twice each, interleaved (predictions: session26_probe.sh's header).
# 3. session27_pick.py: cr or c2 (on the cluster rows) and occ6 (on the combine rows), each only where it measured
#    0.5% faster; the pick's GPU tests (a failure falls back to rc); its patches applied to this tree (the receipts
#    digest the kernel sources), then the receipts (h200_sparse_mla.sh), three runs of the rows near the line,
#    racecheck on mla-43, -06 and -34 and memcheck on cluster, queue and planned rows.
# 4. While time is left: the clock64 traces of mla-43 on tr (and t2 when c2 is in).
# $OUT/s27.tgz is rewritten after each step, so a call cut off at its limit still returns what it did.
# Ran once (session 27, on an H100): it picked cr; the FlashMLA receipt failed there (FM_LIB was not exported, since
# fixed in plan_ab.sh) and a second call took it. The patches and stacks it names are gone from pending/ since 84d3408.
# (Its A/B loop rewritten onto plan_ab.sh's ab_builds after it ran, with the same commands.)
[ -f .dev/s26.tar.xz ] && { tar -C .dev -xJf .dev/s26.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/s26.tar.xz').extractall('.dev')"; }
CALL=s27; source scripts/device/plan_ab.sh
save() { tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' --exclude='*.ncu-rep' .; }
BUILDS="rc oc"
ab_probe cr cr 'mla-42-*,mla-43-*' && BUILDS="$BUILDS cr"
ab_probe c2 c2 'mla-42-*,mla-43-*' && BUILDS="$BUILDS c2"
ab_builds $BUILDS
python3 scripts/device/calls/session27_pick.py "$O" $BUILDS | tee "$O/pick.txt"
PICK=$(tail -1 "$O/pick.txt"); [ -x "$ROOT/.dev/$PICK/kgate_gpu_tests" ] || PICK=rc
save
B=$ROOT/.dev/$PICK; ab_gpu_tests; mv "$O/gpu_tests.log" "$O/gpu_tests_$PICK.log"
if grep -q '^\[  FAILED' "$O/gpu_tests_$PICK.log" || ! grep -q '^\[  PASSED' "$O/gpu_tests_$PICK.log"; then
  [ "$PICK" != rc ] && { echo "pick $PICK failed its GPU tests: rc instead"; PICK=rc; B=$ROOT/.dev/rc; ab_gpu_tests; mv "$O/gpu_tests.log" "$O/gpu_tests_rc.log"; }
fi
echo "receipts of $PICK" | tee -a "$O/pick.txt"
P=scripts/device/pending
apply() { git apply "$P/$1" 2>/dev/null || patch -p1 -s < "$P/$1" || echo "could not apply $1"; }
case $PICK in cr|cro|c2|c2o) apply issue14-cl-relaxed.patch ;; esac
case $PICK in c2|c2o) apply issue14-cl-depth2.patch ;; esac
case $PICK in oc|cro|c2o) apply issue14-comb-occ6.patch ;; esac
sha256sum kernels/sparse_mla/*.cuh kernels/sparse_mla/*.cu > "$O/tree_kernels.sha256"
save
OUT=$O/r timeout 240 bash scripts/device/h200_sparse_mla.sh "$B" > "$O/sparse_mla_call.log" 2>&1; echo "receipts rc=$?"
grep -E "campaign wall|pass policy|geomean|OK|FAIL|stale|host time" "$O/sparse_mla_call.log" | cut -c1-300 | head -30
save
FM=$BASE; source scripts/device/sparse_mla_checks.sh
mla_near "mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-89-*" | tee "$O/near_spread.log"
save
timeout 150 bash scripts/device/racecheck_rows.sh "$B" "$O/racecheck" cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 50 \
  'mla-43-*' 'mla-06-*' 'mla-34-*'
mla_memcheck "mla-06-*,mla-10-*,mla-33-*,mla-35-*,mla-42-*,mla-43-*,mla-44-*,mla-34-*,mla-91-*"
save
[ "$SECONDS" -lt 520 ] && ab_trace tr 43 trace_mla-43
case " $BUILDS " in *" c2 "*) [ "$SECONDS" -lt 540 ] && ab_trace t2 43 trace_c2_mla-43 ;; esac
MHZ=$(awk -F', ' 'NR==2 {print $2+0}' "$O/gpu.txt"); [ "${MHZ:-0}" -gt 0 ] 2>/dev/null || MHZ=1980
ls "$O"/trace_*.txt > /dev/null 2>&1 && python3 scripts/ws_trace_summary.py "$O"/trace_*mla-*.txt --mhz "$MHZ" > "$O/trace_summary.txt" 2>&1
rm -f "$O"/trace_*.json "$O"/near_fm_*.json.*
save
echo "call done in $SECONDS s"
