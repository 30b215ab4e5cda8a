#!/usr/bin/env bash
# Written in session 26, when no device was lent: the first call of the next session that has one (before any
# receipts: the receipts are of rc plus whichever patches win here). Made here first:
#   bash scripts/device/pending/build.sh      -> .dev/s26.tar.xz (builds rc, oc, cr, c2, tr; README in that folder)
#   the FlashMLA export as .dev/fm             (scripts/peers/flashmla_sparse.sh --src ... --out .dev/fm)
# carry: [".dev/fm", ".dev/s26.tar.xz"]. About 5-6 min of the call's 10.
# In order of need:
# 0. A 30 s probe of cr and c2 on mla-42 and -43 (correct, no hang); a build that fails it drops out.
# 1. GPU tests of oc and of the last build still in (c2 holds cr's changes too; the sparse_mla and FlashMLA-export ones).
# 2. The 28 FlashMLA rows, two runs each of rc, oc, cr and c2, interleaved. Predictions (kernels/sparse_mla/NOTES.md,
#    session 26): if the combine's time is waves of CTAs (4 an SM now; 1.2-2.4 waves on the 20-40-token split rows),
#    oc's combine shortens there (mla-44 6.9 -> ~5.5 us, mla-34 4.9 -> ~3.8, mla-19 5.1 -> ~4.1) and stays on the rows
#    of one wave (mla-06, -07, -31); if it is bytes, nothing moves. cr: the cluster rows (mla-33, -42, -43) 0.3-1 us
#    shorter (no MEMBAR.ALL.GPU at entry and after the out stores), every other row the same kernel. c2: if the
#    cluster kernel's 2.5 us block step is the producer's (each step waits out one row gather), mla-43's step falls
#    toward the consumers' (~1.5 us: 33.8 -> ~25-27 us), mla-33 and -42 (2 blocks) ~0.3 us; if the consumers set the
#    step, c2 = cr.
# 3. Nsight Compute (full set) of the combine on rc: mla-07 (10 splits, 80 CTAs), mla-34 (plan, 640 CTAs), mla-44
#    (after the dequant pass, 1280 CTAs): L2 hit rate, DRAM bytes, achieved occupancy, the stall reasons; the
#    question session 22 left: ~2.5 TB/s on partials that should sit in L2.
# 4. Nsight Compute of the 2-CTA cluster kernel against FlashMLA's main kernel on mla-42 (2 blocks a CTA) and of
#    ours on mla-43 (10): FlashMLA's main kernel runs the same schedule (one token a cluster, unsplit) 1.7 us
#    shorter on both rows (mla-42 12.05 against 13.81, mla-43 32.08 against 33.76; mla-33 10.74 against 12.40), so
#    the gap is fixed cost, not the block step: instructions and stalls by region (scripts/ncu_stall_summary.py).
# 5. Where that fixed cost sits: the tr build's clock64 stamps (entry, first indices and rows in, each block's stage,
#    Q in, S0, each block's full wait and P V, emit, exit) on mla-42 and mla-43 (the cluster) and mla-18 (h64, one
#    CTA a token, 0.86 us behind FlashMLA's main kernel), read by scripts/ws_trace_summary.py at the call's SM clock:
#    the prologue and epilogue, and per block whether warpgroup 0 waits for the producer (the step producer-bound)
#    or not (consumer-bound). Then, while time is left, the t2 build's stamps (c2's kernel) on mla-42 and -43.
if [ -f .dev/s26.tar.xz ]; then
  tar -C .dev -xJf .dev/s26.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/s26.tar.xz').extractall('.dev')"
fi
CALL=s26p; source scripts/device/plan_ab.sh
# Probes first (30 s each, the cluster rows against the floor): a build whose new path fails or hangs drops out of
# what follows instead of costing the call its timeouts.
BUILDS="rc oc"
ab_probe cr cr 'mla-42-*,mla-43-*' && BUILDS="$BUILDS cr"
ab_probe c2 c2 'mla-42-*,mla-43-*' && BUILDS="$BUILDS c2"
B=$ROOT/.dev/oc; ab_gpu_tests; mv "$O/gpu_tests.log" "$O/gpu_tests_oc.log"
LAST=${BUILDS##* }
if [ "$LAST" != oc ]; then B=$ROOT/.dev/$LAST; ab_gpu_tests; mv "$O/gpu_tests.log" "$O/gpu_tests_$LAST.log"; fi
for i in 1 2; do
  for b in $BUILDS; do B=$ROOT/.dev/$b; ab_run "${b}_$i" KGATE_X=1; done
done
python3 scripts/sparse_mla_kernel_table.py "$O" > /dev/null 2>&1; tar -C "$O" -czf "$OUT/$CALL.tgz" --exclude='*.json.*' .
for row in 42 43 18; do ab_trace tr $row trace_mla-$row; done
case " $BUILDS " in *" c2 "*) for row in 42 43; do [ "$SECONDS" -lt 330 ] && ab_trace t2 $row trace_c2_mla-$row; done ;; esac
MHZ=$(awk -F', ' 'NR==2 {print $2+0}' "$O/gpu.txt"); [ "${MHZ:-0}" -gt 0 ] 2>/dev/null || MHZ=1980
python3 scripts/ws_trace_summary.py "$O"/trace_*mla-*.txt --mhz "$MHZ" | tee "$O/trace_summary.txt" |
  grep -E "==|first|Q in|block 0 stage|block 0 full|S0|emit|exit|cadence|^ {4}[1-7] "
# NCU=0 (session 27, when failed starts had eaten a third of the device time) skips the Nsight Compute steps.
B=$ROOT/.dev/rc; FM=$BASE; source scripts/device/sparse_mla_checks.sh
if [ "${NCU:-1}" = 1 ]; then
for row in 07 34 44; do
  [ "$SECONDS" -lt 470 ] && mla_ncu "comb$row" "mla-$row-*" sparse_mla.floor sparse_mla_fast_combine_kernel
done
[ "$SECONDS" -lt 480 ] && mla_ncu ws42 'mla-42-*' sparse_mla.floor sparse_mla_fast_ws_kernel
[ "$SECONDS" -lt 490 ] && mla_ncu fm42 'mla-42-*' "$FM" flash_fwd_splitkv_mla_fp8_sparse
[ "$SECONDS" -lt 500 ] && mla_ncu ws43 'mla-43-*' sparse_mla.floor sparse_mla_fast_ws_kernel
for n in comb07 comb34 comb44 ws42 fm42 ws43; do
  [ -f "$O/$n.details.txt" ] || continue
  echo "== $n"
  grep -E "Grid Size|Registers Per|Achieved Occupancy" "$O/$n.details.txt" | head -4  # mla_ncu printed the rest
  python3 scripts/ncu_stall_summary.py "$O/$n.sass.csv" --top 6 > "$O/$n.stalls.txt" 2>&1
done
rm -f "$O"/*.ncu-rep
fi
ab_finish
