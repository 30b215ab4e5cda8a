#!/usr/bin/env bash
# Session 29. Main's sparse_mla receipts are an H100's (session 27); the first aim is the same receipts on an H200.
# sk2 (pending/issue14-sinks-early-ws.patch): session 28's sk (each item's sinks loaded at its start, not at its emit)
# in the warp-specialized kernel only; the lockstep kernel's PTX is main's but for line info. sk measured every ws row
# 0.1-1.2 us shorter (mla-89 128.38 -> 127.13 union) and the lockstep kernel 0.2 us longer; sk2 should keep the first
# and lose the second. Predicted: mla-89 ~1% faster, mla-43 ~1%, lockstep rows (mla-06, -30, -31) level (within 1%).
# Made here first: main's build in .dev/x, main + the patch in .dev/sk2, packed as .dev/s29.tar.xz
# (tar -C .dev -cf - x sk2 | xz -6 -T2 > .dev/s29.tar.xz), the FlashMLA export in .dev/fm.
# carry: [".dev/fm", ".dev/s29.tar.xz"].
# 1. x and sk2 twice each, interleaved, on the 28 FlashMLA rows; session28b_pick.py picks (its rule: mla-89 0.5%
#    faster, no row 1% slower, geomean below 1, every row passed).
# 2. the receipts of the pick (its patch applied to this tree: the receipts digest the kernel sources) if the pick is
#    sk2 or the GPU is an H200 (sparse_mla_receipts_session21.sh: GPU tests, three receipts, near-line reruns), then
#    memcheck and racecheck on a few rows while the device time lasts.
# $OUT/s29.tgz is rewritten after each step; the receipts' call writes $OUT/m29.tar.
tar -C .dev -xJf .dev/s29.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/s29.tar.xz').extractall('.dev')"
CALL=s29; source scripts/device/plan_ab.sh
save() { tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' --exclude='*.ncu-rep' .; }
cat "$O/gpu.txt"
ab_builds x sk2
python3 scripts/device/calls/session28b_pick.py "$O" sk2 | tee "$O/pick.txt"
PICK=$(tail -1 "$O/pick.txt"); [ "$PICK" = sk2 ] || PICK=x
save
if [ "$PICK" != x ] || grep -q H200 "$O/gpu.txt"; then
  [ "$PICK" = sk2 ] && { git apply scripts/device/pending/issue14-sinks-early-ws.patch || echo "could not apply the patch"; }
  sha256sum kernels/sparse_mla/*.cuh kernels/sparse_mla/*.cu > "$O/tree_kernels.sha256"
  echo "receipts of $PICK" | tee -a "$O/pick.txt"
  SANITIZE=0 BUILD=$PICK TAG=m29 NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-87-*,mla-89-*" \
    bash scripts/device/calls/sparse_mla_receipts_session21.sh
  save
  B=$ROOT/.dev/$PICK; source scripts/device/sparse_mla_checks.sh
  [ "$SECONDS" -lt 300 ] && mla_memcheck "mla-34-*,mla-43-*,mla-87-*,mla-89-*"
  [ "$SECONDS" -lt 340 ] && timeout 100 bash scripts/device/racecheck_rows.sh "$B" "$O/racecheck" cases/sparse_mla_94.json \
    sparse_mla.fast sparse_mla.floor 45 'mla-34-*' 'mla-43-*'
else
  echo "x on an H100: no receipts" | tee -a "$O/pick.txt"
fi
save
echo "call done in $SECONDS s"
