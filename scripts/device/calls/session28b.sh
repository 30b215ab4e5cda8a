#!/usr/bin/env bash
# Session 28, second call. The first (session28.sh, H100) refuted nr and nd and traced mla-89: the BF16 kernel's step is
# ~1.95 us, and each item boundary costs ~7 us more (the last block's step ~3.8 us, the next item's first ~7.0), of
# which the emit is ~2.3 us and the next item's Q the rest. The emit loads the item's sinks (mla-89 has sinks) and waits
# for them before its stores. sk (pending/issue14-sinks-early.patch) loads them at the item's start.
# Predicted: mla-89 2-3 us shorter (four items a CTA, one L2 trip each), mla-87 ~1 us; rows without sinks unchanged.
# sq (pending/issue14-sinks-q-after-p.patch, sk included): the item's last block steps ~3.8 us against ~1.95; right
# after its S, warpgroup 0 issues the next item's Q (32 cp.async a thread), queued ahead of the softmax's shared-memory
# stores. sq issues them after P's stores. Predicted: if that queue is the cause, ~1.5 us less an item boundary
# (mla-89 ~5 us, the prefill rows most); if the Q's trip is, sq is slower than sk.
# Made here first: main's build in .dev/x, main + each patch in .dev/sk and .dev/sq, packed as .dev/s28b.tar.xz (tar -C
# .dev -cf - x sk sq | xz -6 -T2 > .dev/s28b.tar.xz), the FlashMLA export in .dev/fm.
# carry: [".dev/fm", ".dev/s28b.tar.xz"].
# 1. x, sk and sq twice each, interleaved, on the 28 FlashMLA rows; session28b_pick.py picks.
# 2. the receipts of the pick (its patch applied to this tree: the receipts digest the kernel sources) if the pick is
#    sk or sq, or the GPU is an H200, without their sanitizers; then memcheck and racecheck on a few rows while the
#    device time lasts (sparse_mla_receipts_session21.sh: GPU tests, three receipts, near-line reruns, sanitizers).
# $OUT/s28b.tgz is rewritten after each step; the receipts' call writes $OUT/m28.tar.
# Ran once (session 28, H100): neither sk nor sq taken, so no receipts; their patches are gone from pending/ (in
# history at 4d03854); sk's refined form waits there as issue14-sinks-early-ws.patch (build sk2).
# (Its A/B loop and its receipts' tail rewritten onto plan_ab.sh's ab_builds and ab_receipts after it ran, with the
# same commands.)
tar -C .dev -xJf .dev/s28b.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/s28b.tar.xz').extractall('.dev')"
CALL=s28b; source scripts/device/plan_ab.sh
save() { tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' --exclude='*.ncu-rep' .; }
cat "$O/gpu.txt"
ab_builds x sk sq
python3 scripts/device/calls/session28b_pick.py "$O" | tee "$O/pick.txt"
PICK=$(tail -1 "$O/pick.txt"); case $PICK in sk|sq) ;; *) PICK=x ;; esac
save
if [ "$PICK" != x ] || grep -q H200 "$O/gpu.txt"; then
  case $PICK in
    sk) PATCHES=scripts/device/pending/issue14-sinks-early.patch ;;
    sq) PATCHES=scripts/device/pending/issue14-sinks-q-after-p.patch ;;
    *) PATCHES= ;;
  esac
  # the sanitizers while the device time lasts (this session's starts cost most of it): memcheck first
  ab_receipts "$PICK" m28 260 300 $PATCHES
else
  echo "x on an H100: no receipts" | tee -a "$O/pick.txt"
fi
save
echo "call done in $SECONDS s"
