#!/usr/bin/env bash
# Session 20, calls 2 and 3 (branch issue14-merge; call 3: CALL=s20c3 MG=mg2, the fixed build): split pairs merged in the kernel by the split that finishes
# last (no combine kernel) against main's kernels. Builds carried: .dev/m (aa8b1c5, main's kernels),
# .dev/${MG:-mg} (the merge; KGATE_SPARSE_MLA_MERGE=0 runs its combine kernel instead: mg0). The 28 FlashMLA rows,
# two runs each, m mg mg0 interleaved; then mg's GPU tests, its 94 rows and hardening rows vs the baseline.
CALL=${CALL:-s20c2}; source scripts/device/plan_ab.sh
for i in 1 2; do
  B=$ROOT/.dev/m; ab_run m_$i KGATE_X=1
  B=$ROOT/.dev/${MG:-mg}; ab_run mg_$i KGATE_X=1
  B=$ROOT/.dev/${MG:-mg}; ab_run mg0_$i KGATE_SPARSE_MLA_MERGE=0
done
B=$ROOT/.dev/${MG:-mg}; ab_gpu_tests
for t in 94 hardening; do
  timeout 150 "$B/kgate" run --quiet --cases cases/sparse_mla_$t.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
    --policy correct,strict --out "$O/mg_base$t.json" > "$O/mg_base$t.log" 2>&1
  echo "$t vs baseline rc=$?: $(grep -E 'pass policy|geomean' "$O/mg_base$t.log" | head -3 | cut -c1-200 | tr '\n' ' ')"
done
ab_finish
