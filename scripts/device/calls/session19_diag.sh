#!/usr/bin/env bash
# Session 19, call 2 (branch issue14-plan2, .dev/n): why the length-balanced plan's kernel runs 3-7 us
# longer than the queue's on rows with the same items (mla-42: one pair per CTA either way). Variants on
# five rows, against the floor, two rounds: q (queue, KGATE_SPARSE_MLA_WS_PLAN=0), d (plan, 132
# partitions), q132 (queue on 132 CTAs: empty CTAs as the plan has), d80 (plan over 80 partitions: mla-42's
# items on 80 CTAs, as the queue's grid).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/n; O=/tmp/s19c2; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
ROWS='mla-42-*,mla-32-*,mla-20-*,mla-10-*,mla-35-*'
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
run() {  # NAME ENV...
  local name=$1; shift
  env "$@" timeout 60 $B/kgate run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate sparse_mla.fast \
    --baseline sparse_mla.floor --policy correct --out $O/$name.json > $O/$name.log 2>&1
  echo "$name rc=$?: $(grep -E 'pass policy' $O/$name.log | cut -c1-120)"
  python3 scripts/sparse_mla_table.py $O/$name.json > $O/$name.txt 2>&1
}
for i in 1 2; do
  run q_$i KGATE_SPARSE_MLA_WS_PLAN=0
  run d_$i KGATE_X=1
  run q132_$i KGATE_SPARSE_MLA_WS_PLAN=0 KGATE_SPARSE_MLA_WS_GRID=132
  run d80_$i KGATE_SPARSE_MLA_WS_PARTS=80
done
python3 - $O <<'PY'
import json, sys, glob, os, re
O = sys.argv[1]
tab = {}
for f in sorted(glob.glob(O + '/*_[12].json')):
    v = os.path.basename(f)[:-5]
    for r in json.load(open(f))['body']['predicate']['rows']:
        act = r['activity_us'].get('sparse_mla.fast', {})
        ks = {re.sub(r'^.*?(sparse_mla_\w+?_kernel).*$', r'\1', k): x['median'] for k, x in act.items()}
        tab.setdefault(r['id'][:6], {})[v] = ks
for row, vs in tab.items():
    print(row, '  '.join(f"{v}: " + '+'.join(f"{x:.1f}" for x in ks.values()) for v, ks in sorted(vs.items())))
PY
tar -C $O -czf $OUT/s19c2.tgz .
