#!/usr/bin/env bash
# Session 28, call 1: where mla-89's time goes (the one row not faster than FlashMLA: the dequantized-once pass, 12.3 us,
# plus the BF16 warp-specialized kernel, 116 us, against FlashMLA's 128.5 on the H100), and, on an H200, the sparse_mla
# receipts of main again (session 27's are the H100's).
# Made here first: bash scripts/device/pending/build.sh (tr: main + ws_trace.py's stamps, now with the BF16 producer's
# and a window of block steps KGATE_WS_TRACE_K0 .. + 7, so an item's end shows), main's build in .dev/x, the FlashMLA
# export in .dev/fm. carry: [".dev/fm", ".dev/x", ".dev/pending.tar.xz"].
# 1. traces of mla-89 (tr) at block steps 0-7 and 6-13 (its items are 10 blocks), and of mla-87 at 6-13;
#    and of mla-89 with the route forced off at 6-13;
# 2. mla-87, -89, -93 (the routed prefill rows) against FlashMLA, the route on (the rule) and forced off, twice each
#    (off, the h128 rows take the FP8 2-CTA cluster, whose step measured 2.4 us on mla-43 against the BF16 kernel's
#    ~2.95 on mla-89: predicted mla-89 ~128 -> ~114 us if the cluster keeps that step over four items a cluster);
# 3. Nsight Compute of the dequant pass on mla-89;
# 4. on an H200 only: sparse_mla_receipts_session21.sh on .dev/x ($OUT/m28.tar).
# $OUT/s28a.tgz is rewritten after each step.
tar -C .dev -xJf .dev/pending.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/pending.tar.xz').extractall('.dev')"
CALL=s28a; source scripts/device/plan_ab.sh
save() { tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' --exclude='*.ncu-rep' .; }
cat "$O/gpu.txt"
ab_trace tr 89 trace89_k0
export KGATE_WS_TRACE_K0=6
ab_trace tr 89 trace89_k6
ab_trace tr 87 trace87_k6
export KGATE_SPARSE_MLA_DEQUANT=0  # the route off: mla-89 takes the FP8 2-CTA cluster (mla-43's 2.4 us step)
ab_trace tr 89 trace89_noroute_k6
unset KGATE_WS_TRACE_K0 KGATE_SPARSE_MLA_DEQUANT
save
B=$ROOT/.dev/x; ROWS="mla-87-*,mla-89-*,mla-93-*"
for i in 1 2; do
  ab_run "route_$i" KGATE_X=1
  ab_run "noroute_$i" KGATE_SPARSE_MLA_DEQUANT=0
done
python3 scripts/sparse_mla_kernel_table.py "$O" > "$O/kernel_medians.txt" 2>&1; cat "$O/kernel_medians.txt" | cut -c1-200 | head -40
save
source scripts/device/sparse_mla_checks.sh
mla_ncu dq89 'mla-89-*' sparse_mla.floor sparse_mla_dequant_kernel
save
if grep -q H200 "$O/gpu.txt"; then
  BUILD=x TAG=m28 RACE_ROWS="mla-43-* mla-06-* mla-34-*" MEM_MORE=",mla-33-*,mla-34-*,mla-43-*,mla-91-*" \
    NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-89-*" bash scripts/device/calls/sparse_mla_receipts_session21.sh
else
  echo "not an H200: no receipts"
fi
save
