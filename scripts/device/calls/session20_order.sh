#!/usr/bin/env bash
# Session 20, call 5: the first sample after the other arm. In the aa8b1c5 receipt against FlashMLA, every
# warp-specialized row's candidate sample that follows a baseline sample is 4-8 us slower than the next
# (mla-42: 22.8 against 15.5). Which arm before it matters? sparse_mla.fast (.dev/m, main's kernels) on
# mla-42, -43, -87 against the floor (a small kernel), the split-KV baseline and FlashMLA; FlashMLA as the
# candidate against the floor. Each receipt's per-sample sequences (group 0) are printed.
CALL=s20c5; ROWS='mla-42-*,mla-43-*,mla-87-*'; source scripts/device/plan_ab.sh
B=$ROOT/.dev/m
FM=export:$FM_LIB:sparse_mla.flashmla
run1() {  # NAME CANDIDATE BASELINE
  timeout 100 "$B/kgate" run --quiet --cases cases/sparse_mla_94.json --rows "$ROWS" --candidate "$2" --baseline "$3" \
    --policy correct --out "$O/$1.json" > "$O/$1.log" 2>&1
  echo "$1 rc=$?"
  python3 - "$O/$1.json" <<'PY'
import glob, json, sys
s = json.load(open(glob.glob(sys.argv[1][:-5] + '.*.samples.json')[0]))
for k, v in s['rows'].items():
    p = v['pairs'][0]
    print(k[:6], 'cand', ' '.join('%.1f' % x for x in p['candidate'][0]))
    print(k[:6], 'base', ' '.join('%.1f' % x for x in p['baseline'][0]))
PY
}
run1 fast_floor sparse_mla.fast sparse_mla.floor
run1 fast_base sparse_mla.fast sparse_mla.baseline
run1 fast_fm sparse_mla.fast "$FM"
run1 fm_floor "$FM" sparse_mla.floor
ab_finish
