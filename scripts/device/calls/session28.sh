#!/usr/bin/env bash
# Session 28, one call: mla-89 (the one row not faster than FlashMLA: the dequantized-once pass, 12.3 us, plus the BF16
# warp-specialized kernel, 116 us, against FlashMLA's 128.5 on the H100) and the receipts.
# Made here first: bash scripts/device/pending/build.sh (tr: main + ws_trace.py's stamps, now with the BF16 producer's
# and a window of block steps KGATE_WS_TRACE_K0 .. + 7, so an item's end shows), main's build in .dev/x, main +
# pending/issue14-noroute-cl.patch in .dev/nr, nr + pending/issue14-dequant-units.patch in .dev/nd, the FlashMLA export
# in .dev/fm; x, nr, nd and tr packed as .dev/s28.tar.xz (tar -C .dev -cf - x nr nd tr/kgate | xz -6 -T2 >
# .dev/s28.tar.xz). carry: [".dev/fm", ".dev/s28.tar.xz"].
# 1. x, nr and nd, twice each interleaved, on the routed rows (mla-87, -89, -91, -93; mla-20, -35, -44 planned) against
#    FlashMLA. nr: the FP8 rows the 2-CTA cluster takes skip the route (mla-89, -93); the cluster's step measured
#    2.4 us on mla-43 against the BF16 kernel's ~2.95 on mla-89. Predicted: mla-89 ~128 -> ~114 us, mla-93 ~153 ->
#    ~130, the other rows unchanged. nd: the dequant pass (12.2 us for 16.5 k rows, 2.2 TB/s of 3.0 on the H100)
#    one 16-byte output unit a task (warp stores of 512 contiguous bytes, not two half-filled ones), four a thread
#    with their loads first; predicted ~9.5 us, so mla-87 and -91 ~2.5 us shorter. session28_pick.py picks.
# 2. the receipts of the pick (its patch applied to this tree, since the receipts digest the kernel sources) if the
#    pick is nr or the GPU is an H200 (main's receipts of session 27 are the H100's): GPU tests, the three receipts,
#    three more runs near the line, racecheck and memcheck (sparse_mla_receipts_session21.sh).
# 3. while time is left: traces (tr) of mla-89 at block steps 6-13 (its items are 10 blocks) with the route on and
#    off and at 0-7, then Nsight Compute of the dequant pass on mla-89.
# $OUT/s28.tgz is rewritten after each step; the receipts' call writes $OUT/m28.tar.
# Ran once (session 28, H100): nr and nd refuted, so no receipts; their patches are gone from pending/ (in history at
# 4d03854). The traces' summary there used the idle clock of gpu.txt; logs/sparse_mla_session28/ has it at 1980 MHz.
# (Its A/B loop rewritten onto plan_ab.sh's ab_builds after it ran, with the same commands.)
tar -C .dev -xJf .dev/s28.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/s28.tar.xz').extractall('.dev')"
CALL=s28; source scripts/device/plan_ab.sh
save() { tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' --exclude='*.ncu-rep' .; }
cat "$O/gpu.txt"
ROWS="mla-87-*,mla-89-*,mla-91-*,mla-93-*,mla-20-*,mla-35-*,mla-44-*"
ab_builds x nr nd
python3 scripts/device/calls/session28_pick.py "$O" | tee "$O/pick.txt"
PICK=$(tail -1 "$O/pick.txt"); case $PICK in nr|nd) ;; *) PICK=x ;; esac
save
apply() { git apply "scripts/device/pending/$1" || patch -p1 -s < "scripts/device/pending/$1" || echo "could not apply $1"; }
if [ "$PICK" != x ] || grep -q H200 "$O/gpu.txt"; then
  [ "$PICK" != x ] && apply issue14-noroute-cl.patch
  [ "$PICK" = nd ] && apply issue14-dequant-units.patch
  sha256sum kernels/sparse_mla/*.cuh kernels/sparse_mla/*.cu > "$O/tree_kernels.sha256"
  echo "receipts of $PICK" | tee -a "$O/pick.txt"
  BUILD=$PICK TAG=m28 RACE_ROWS="mla-43-* mla-06-* mla-34-*" MEM_MORE=",mla-33-*,mla-34-*,mla-43-*,mla-89-*,mla-91-*" \
    NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-89-*" bash scripts/device/calls/sparse_mla_receipts_session21.sh
else
  echo "x on an H100: no receipts" | tee -a "$O/pick.txt"
fi
save
if [ "$SECONDS" -lt 500 ]; then
export KGATE_WS_TRACE_K0=6
ab_trace tr 89 trace89_k6
KGATE_SPARSE_MLA_DEQUANT=0 ab_trace tr 89 trace89_noroute_k6
unset KGATE_WS_TRACE_K0
ab_trace tr 89 trace89_k0
MHZ=$(awk -F', ' 'NR==2 {print $2+0}' "$O/gpu.txt"); [ "${MHZ:-0}" -gt 0 ] 2>/dev/null || MHZ=1980
python3 scripts/ws_trace_summary.py "$O"/trace89_*.txt --mhz "$MHZ" > "$O/trace_summary.txt" 2>&1
rm -f "$O"/trace*.json
fi
save
if [ "$SECONDS" -lt 500 ]; then
  B=$ROOT/.dev/x; source scripts/device/sparse_mla_checks.sh
  mla_ncu dq89 'mla-89-*' sparse_mla.floor sparse_mla_dequant_kernel
fi
save
echo "call done in $SECONDS s"
