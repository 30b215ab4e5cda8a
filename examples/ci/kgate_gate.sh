#!/usr/bin/env bash
# A kernel repository's CI gate on its committed kgate receipts (the step examples/ci/kgate.yml runs):
#   1. every receipt audits, every row passes --policy (default correct), and nothing it recorded
#      is stale (kgate gate --against-tree . --kgate-sources binary: a table or export library of
#      the tree, or kgate's own sources against the installed kgate's, changed without a new
#      receipt fails);
#   2. with --base REF, each receipt that REF also holds is compared with REF's (kgate compare):
#      a pair resolved SLOWER fails, and one UNRESOLVED too under --fail-on-unresolved.
# No GPU is needed: gate and compare read the receipts and the tree.
#
# usage: kgate_gate.sh [--receipts DIR] [--policy P] [--base REF] [--fail-on-unresolved] [--kgate BIN]
#   --receipts DIR  the folder of receipts, searched recursively (default receipts)
#   --policy P      the policy every row must pass (default correct)
#   --base REF      a git ref whose receipts the change is compared with (the base branch)
#   --kgate BIN     the kgate to use (default: kgate on PATH)
# Exit: 0 all gates pass, 1 a receipt fails, is stale, or a pair is SLOWER (UNRESOLVED with the flag), 2 usage.
set -uo pipefail
dir=receipts policy=correct base="" unresolved=() K=kgate
while [ $# -gt 0 ]; do
  case "$1" in
    --receipts) dir=$2; shift 2 ;;
    --policy) policy=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --fail-on-unresolved) unresolved=(--fail-on-unresolved); shift ;;
    --kgate) K=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "kgate_gate.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
mapfile -t receipts < <(find "$dir" -name '*.json' ! -name '*.samples.json' ! -name '*.sanitize.json' \
  ! -name '*.accept.json' 2>/dev/null | sort)
[ "${#receipts[@]}" -gt 0 ] || { echo "kgate_gate.sh: no receipts under $dir" >&2; exit 2; }
rc=0
for r in "${receipts[@]}"; do
  # kgate's own sources a receipt names (its harness, the family's context) are this kgate's build's.
  "$K" gate "$r" --policy "$policy" --against-tree . --kgate-sources binary || rc=1
done
if [ -n "$base" ]; then
  old=$(mktemp -d)
  trap 'rm -rf "$old"' EXIT
  for r in "${receipts[@]}"; do
    git show "$base:$r" >"$old/receipt.json" 2>/dev/null || { echo "new in this change: $r"; continue; }
    # The sidecar the old receipt names, beside it.
    side=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["body"]["predicate"]["samples"]["path"])' "$old/receipt.json")
    git show "$base:$(dirname "$r")/$side" >"$old/$side" 2>/dev/null
    "$K" compare "$old/receipt.json" "$r" "${unresolved[@]}" || rc=1
  done
fi
echo "kgate_gate.sh: ${#receipts[@]} receipts, exit $rc"
exit $rc
