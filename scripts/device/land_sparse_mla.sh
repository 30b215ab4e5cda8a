#!/usr/bin/env bash
# Lands the sparse_mla receipts of a device call as session 25 did by hand (5a11ee3): the three receipts and their
# samples sidecars into receipts/sm_90 (the old sidecars git rm'ed), their md and html reports, per-row tables and
# `kgate carryover` under receipts/sm_90/logs/ with SUFFIX, then audit and gate --against-tree (the tree must hold
# the sources the receipts were run from). Stages nothing but the receipts' own files; prints what it did.
# Usage: land_sparse_mla.sh RECEIPTS_TAR SUFFIX [KGATE]   (RECEIPTS_TAR: h200_sparse_mla.sh's receipts_h200_sparse_mla.tar)
set -euo pipefail
tarf=$1 sfx=$2 K=${3:-build/kgate}
[ -f "$tarf" ] || { echo "land_sparse_mla.sh: no $tarf" >&2; exit 2; }
D=receipts/sm_90 L=receipts/sm_90/logs tmp=$(mktemp -d)
tar -C "$tmp" -xf "$tarf"
names="sparse_mla_fast_vs_baseline sparse_mla_fast_vs_flashmla sparse_mla_hardening_fast_vs_baseline"
for n in $names; do [ -f "$tmp/$n.json" ] || { echo "land_sparse_mla.sh: $n.json missing from $tarf" >&2; exit 2; }; done
"$K" audit $(for n in $names; do echo "$tmp/$n.json"; done)
for n in $names; do
  git rm -q --ignore-unmatch "$D/$n".*.samples.json
  cp "$tmp/$n.json" "$tmp/$n".*.samples.json "$D/"
  "$K" report "$D/$n.json" --out "$D/$n.report.md"
  "$K" report "$D/$n.json" --format html --out "$D/$n.report.html"
  python3 scripts/sparse_mla_table.py "$D/$n.json" > "$L/${n}_table_$sfx.txt"
  "$K" carryover "$D/$n.json" --out "$L/${n}_carryover_$sfx.md"
  tail -1 "$L/${n}_table_$sfx.txt"
done
"$K" gate "$D/sparse_mla_fast_vs_baseline.json" --policy cases/policies/sparse_mla_vs_baseline.json --against-tree . | tail -1
"$K" gate "$D/sparse_mla_fast_vs_flashmla.json" --policy cases/policies/sparse_mla_vs_flashmla.json --against-tree . | tail -1 || true
"$K" gate "$D/sparse_mla_hardening_fast_vs_baseline.json" --policy correct,strict --against-tree . | tail -1
rm -rf "$tmp"
git add $(for n in $names; do echo "$D/$n.json" "$D/$n".*.samples.json "$D/$n.report.md" "$D/$n.report.html"; done) "$L"/*_"$sfx".*
