#!/usr/bin/env bash
# Session 19, call 7 (branch issue14-plan2 at HEAD, .dev/n): call 6 with the combine reading two splits before the count.
# d (plan) against q (the queue), two rounds, the 28 FlashMLA rows; then the GPU tests and the 94 + hardening rows against the baseline.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/s19c7; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/.dev/fm/libkgate_flashmla_sparse.so:sparse_mla.flashmla
ROWS='mla-*-fp8-h64-*,mla-*-fp8-h128-*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
run() {  # NAME ENV...
  local name=$1; shift
  env "$@" timeout 100 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate sparse_mla.fast \
    --baseline "$FM" --policy correct --out $O/$name.json > $O/$name.log 2>&1
  echo "$name rc=$?: $(grep -E 'pass policy' $O/$name.log | cut -c1-100) | $(tail -1 $O/$name.log | cut -c1-10)"
  python3 scripts/sparse_mla_table.py $O/$name.json > $O/$name.txt 2>&1; tail -1 $O/$name.txt | cut -c1-230
}
for i in 1 2; do
  run q_$i KGATE_SPARSE_MLA_WS_PLAN=0
  run d_$i KGATE_X=1
done
KGATE_FLASHMLA_EXPORT=$ROOT/.dev/fm/libkgate_flashmla_sparse.so timeout 150 $B/kgate_gpu_tests \
  --gtest_filter='*SparseMla*:*FlashMla*' > $O/gpu_tests.log 2>&1
echo "gpu tests rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' $O/gpu_tests.log | tr '\n' ' ')"
grep -E '^\[  FAILED  \]|Failure' $O/gpu_tests.log | head -8
python3 - $O <<'PY'
import json, sys, glob, os, re
O = sys.argv[1]
tab = {}
for f in sorted(glob.glob(O + '/*_[12].json')):
    v = os.path.basename(f)[:-5]
    for r in json.load(open(f))['body']['predicate']['rows']:
        act = r['activity_us'].get('sparse_mla.fast', {})
        tab.setdefault(r['id'][:6], {})[v] = '+'.join(f"{x['median']:.1f}" for x in act.values())
for row, vs in tab.items():
    print(row, '  '.join(f"{v}: {s}" for v, s in sorted(vs.items())))
PY
tar -C $O -czf $OUT/s19c7.tgz .
