#!/usr/bin/env bash
# The committed H200 receipts are golden fixtures: every one audits with this build, every arm
# was correct on every row, and the current ones name exactly the kernel sources in this tree
# (a kernel changed without a fresh receipt fails here, as `kgate gate --against-tree` would in CI).
source "$(dirname "$0")/lib.sh"
cd "$SRC"
mapfile -t all < <(find receipts -name '*.json' ! -name '*.samples.json' | sort)
[ "${#all[@]}" -gt 0 ]; check "receipts exist (${#all[@]})" 0 $?
"$KGATE" audit "${all[@]}" > "$WORK/audit.txt"; check "audit every committed receipt" 0 $?
for r in receipts/sm_90/*.json; do
  case "$r" in *.samples.json) continue ;; esac
  "$KGATE" gate "$r" --policy correct --against-tree . > "$WORK/gate.txt"; check "gate correct, not stale: $r" 0 $?
  "$KGATE" report "$r" --format md > "$WORK/report.md"; check "report $r" 0 $?
done
"$KGATE" gate receipts/sm_90/calib_aa.json --policy 'correct,drift(0.02),limit(0.01)' >/dev/null
check "calib A/A: drift <= 2 %, candidate within 1 % of its twin" 0 $?
finish
