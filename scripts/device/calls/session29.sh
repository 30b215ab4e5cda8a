#!/usr/bin/env bash
# Session 29. Main's sparse_mla receipts are an H100's (session 27); the first aim is the same receipts on an H200.
# sk2 (pending/issue14-sinks-early-ws.patch): session 28's sk (each item's sinks loaded at its start, not at its emit)
# in the warp-specialized kernel only; the lockstep kernel's PTX is main's but for line info. sk measured every ws row
# 0.1-1.2 us shorter (mla-89 128.38 -> 127.13 union) and the lockstep kernel 0.2 us longer; sk2 should keep the first
# and lose the second. Predicted: mla-89 ~1% faster, mla-43 ~1%, lockstep rows (mla-06, -30, -31) level (within 1%).
# it (sk2 + pending/issue14-item-ring.patch): the consumers read each next item (t, hg, split, b0, b1) from a ring the
# producer writes when it starts the item, instead of computing it again (ws_item: the order and length loads, two
# dependent trips, at every item boundary of both consumer warpgroups and inside warpgroup 0's Q load for the next
# item). Session 28's trace of mla-89: the item's last block steps 3.80 us (1.95 inside), the next item's first
# 7.00. Predicted: ~0.5-1 us an item boundary, mla-89 (~3 a CTA) ~2 % shorter, every ws row somewhat; lockstep level.
# itp (it + pending/issue14-q-prefetch.patch): producer thread 0 prefetches the next item's Q (64 KB) to L2 a step
# into the current item (cp.async.bulk.prefetch.L2), so warpgroup 0's load of it is an L2 trip. Predicted: up to the
# ~1.1 us a boundary warpgroup 0 waits past its emit, if that wait is Q's DRAM trip; nothing if it was the lookups.
# Made here first: main's build in .dev/x, main + the patches in .dev/sk2, .dev/it, .dev/itp, packed as
# .dev/s29.tar.xz (tar -C .dev -cf - x sk2 it itp | xz -6 -T2 > .dev/s29.tar.xz), the FlashMLA export in .dev/fm.
# carry: [".dev/fm", ".dev/s29.tar.xz"].
# 1. x, sk2, it and itp twice each, interleaved, on the 28 FlashMLA rows; session28b_pick.py picks (its rule, each
#    against x: mla-89 0.5% faster, no row 1% slower, geomean below 1, every row passed; the lowest geomean).
# 2. the receipts of the pick (its patch applied to this tree: the receipts digest the kernel sources) if the pick is
#    not x or the GPU is an H200 (sparse_mla_receipts_session21.sh: GPU tests, three receipts, near-line reruns), then
#    memcheck and racecheck on a few rows while the device time lasts.
# $OUT/s29.tgz is rewritten after each step; the receipts' call writes $OUT/m29.tar.
# Ran once so (H100, 72 s): it 2.9 % faster on mla-89 but mla-19 1.1 % slower (sk2's part); itp slower than it; none
# taken. The second call (session29b): BUILDS="it ir ire" PACK=.dev/s29b.tar.xz CALL=s29b TAG=m29b
# PICK_ARGS="--slower 1.015 --m89 0.99" (ir: main + pending/issue14-item-ring-main.patch, the ring without sk2; ire:
# ir + pending/issue14-early-s.patch, the BF16 kernel's warpgroup 0 issues the next item's first S before its emit,
# with registers 216 / 160 / 128 there). Predicted: ir on mla-89 ~2 % (it less sk2's share), mla-19 level with x;
# ire ~0.5 us an item boundary less than ir on the BF16-route rows (mla-87, -89, -91, -93), the FP8 rows level.
# Ran so (H100, 155 s): it picked and its receipts landed (6305c62). The third call (session29c), against that main
# as x: BUILDS="itb itbe" PACK=.dev/s29c.tar.xz CALL=s29c TAG=m29c PICK_ARGS="--slower 1.015 --m89 1.005"; itb: main +
# pending/issue14-ring-bf16.patch (the ring in the BF16 kernel only: the FP8 kernels' PTX is sk2's but for line info,
# since the ring cost the FP8 rows 0.6-1.6 %); itbe: itb + pending/issue14-early-s-queue.patch (ire's early S, in
# the queue mode only: mla-35, which it slowed 5 %, is a planned row). Predicted: itb the FP8 ws rows back to sk2's
# (mla-33 ~12.1-12.2 us, mla-42 ~13.6), the BF16 rows level; itbe mla-89, -91, -93 ~1 % faster than itb.
# Ran so (H100, 144 s): itb picked, its receipts landed (1741fa0). The fourth call (session29d), against that main:
# BUILDS=pdl PACK=.dev/s29d.tar.xz CALL=s29d TAG=m29d PICK_ARGS="--slower 1.015 --m89 1.005"; pdl: main +
# pending/issue14-pdl-combine.patch (the combine launched with programmatic stream serialization, waiting in
# griddepcontrol.wait; the kernels before it trigger at their start: FlashMLA's combine does the same). Predicted:
# every split row (a combine kernel in kernel_medians.txt) 0.5-1.5 us shorter, the rest level.
# Ran so (H100, 35 s): pdl slower, not taken. The fifth call (session29f), against 1741fa0's kernels: BUILDS="c16 c8"
# PACK=.dev/s29f.tar.xz CALL=s29f TAG=m29f PICK_ARGS="--slower 1.015 --m89 1.005"; c16 / c8: main +
# pending/issue14-combine-c16.patch / -c8.patch (the combine keeps 16 / 8 splits' loads in flight, not 4; two / three
# CTAs an SM). mla-06 (2 splits) takes 2.18 us, mla-07 (10) 3.55: ~0.7 us each further chunk of 4. Predicted: c16
# mla-07 ~-1.3 us, the planned split rows (mla-11, -19, -32, -44, -46) 0.7-2 us shorter; c8 about half that.
PACK=${PACK:-.dev/s29.tar.xz}
tar -C .dev -xJf "$PACK" 2>/dev/null || python3 -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall('.dev')" "$PACK"
CALL=${CALL:-s29}; source scripts/device/plan_ab.sh
save() { tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' --exclude='*.ncu-rep' .; }
cat "$O/gpu.txt"
BUILDS=${BUILDS:-sk2 it itp}
ab_builds x $BUILDS
python3 scripts/device/calls/session28b_pick.py "$O" $BUILDS ${PICK_ARGS:-} | tee "$O/pick.txt"
PICK=$(tail -1 "$O/pick.txt"); case " $BUILDS " in *" $PICK "*) ;; *) PICK=x ;; esac
save
if [ "$PICK" != x ] || grep -q H200 "$O/gpu.txt"; then
  P=scripts/device/pending
  case $PICK in
    sk2) PATCHES="$P/issue14-sinks-early-ws.patch" ;;
    it) PATCHES="$P/issue14-sinks-early-ws.patch $P/issue14-item-ring.patch" ;;
    itp) PATCHES="$P/issue14-sinks-early-ws.patch $P/issue14-item-ring.patch $P/issue14-q-prefetch.patch" ;;
    ir) PATCHES="$P/issue14-item-ring-main.patch" ;;
    ire) PATCHES="$P/issue14-item-ring-main.patch $P/issue14-early-s.patch" ;;
    itb) PATCHES="$P/issue14-ring-bf16.patch" ;;
    itbe) PATCHES="$P/issue14-ring-bf16.patch $P/issue14-early-s-queue.patch" ;;
    pdl) PATCHES="$P/issue14-pdl-combine.patch" ;;
    c16) PATCHES="$P/issue14-combine-c16.patch" ;;
    c8) PATCHES="$P/issue14-combine-c8.patch" ;;
    *) PATCHES= ;;
  esac
  ab_receipts "$PICK" "${TAG:-m29}" 300 340 $PATCHES
else
  echo "x on an H100: no receipts" | tee -a "$O/pick.txt"
fi
save
echo "call done in $SECONDS s"
