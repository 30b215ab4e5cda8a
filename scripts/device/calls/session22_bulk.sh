#!/usr/bin/env bash
# Session 22, call 2: the cluster's rows to the peer by seven 4 KB bulk copies a block (.dev/c2, 5e... on branch
# issue14-cluster) against st.async per 16-byte unit (.dev/c, call 1's build) and the cluster off (c2 build,
# KGATE_SPARSE_MLA_CLUSTER=0), on the h128 FP8 warp-specialized rows, two runs each, interleaved; c2's GPU tests; the
# plan forced on for the one-wave h128 rows (cluster off: overhead 3 and 8; cluster on); ncu of mla-43 (c2, cluster on).
# Also branch issue14-bf16part (.dev/b: BF16 partials) against main de42727 (.dev/m) on the 28 rows, its GPU tests and
# the hardening rows.
CALL=s22c2; source scripts/device/plan_ab.sh
B=$ROOT/.dev/c2
ROWS="mla-43-*" ab_run probe43 KGATE_X=1
if ! grep -q "pass policy" "$O/probe43.log"; then tail -20 "$O/probe43.log"; ab_finish; exit 0; fi
ab_gpu_tests
ROWS='mla-32-*,mla-33-*,mla-34-*,mla-42-*,mla-43-*,mla-46-*,mla-47-*'
for i in 1 2; do
  B=$ROOT/.dev/c2; ab_run "bulk_$i" KGATE_X=1
  B=$ROOT/.dev/c; ab_run "stas_$i" KGATE_X=1
  B=$ROOT/.dev/c2; ab_run "off_$i" KGATE_SPARSE_MLA_CLUSTER=0
done
ROWS='mla-33-*,mla-42-*,mla-43-*'; B=$ROOT/.dev/c2
for i in 1 2; do
  ab_run "p3off_$i" KGATE_SPARSE_MLA_CLUSTER=0 KGATE_SPARSE_MLA_WS_PLAN=1
  ab_run "p8off_$i" KGATE_SPARSE_MLA_CLUSTER=0 KGATE_SPARSE_MLA_WS_PLAN=1 KGATE_SPARSE_MLA_WS_OVERHEAD=8
  ab_run "p3bulk_$i" KGATE_SPARSE_MLA_WS_PLAN=1
done
ab_pair main .dev/m bf16p .dev/b
B=$ROOT/.dev/b; ab_hard hard_bf16p
KGATE_FLASHMLA_EXPORT=$FM_LIB timeout 150 "$B/kgate_gpu_tests" --gtest_filter='*SparseMla*' > "$O/gpu_tests_bf16p.log" 2>&1
echo "bf16p gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$O/gpu_tests_bf16p.log" | tr '\n' ' ')"
B=$ROOT/.dev/c2
source scripts/device/sparse_mla_checks.sh
mla_ncu bulk43 'mla-43-*' sparse_mla.floor sparse_mla_fast_ws_kernel
python3 scripts/ncu_stall_summary.py $O/bulk43.sass.csv --top 25 > $O/bulk43_stalls.txt 2>&1; head -60 $O/bulk43_stalls.txt
rm -f $O/*.ncu-rep
ab_finish
