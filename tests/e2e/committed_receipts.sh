#!/usr/bin/env bash
# The committed receipts (receipts/<arch>/<gpu>/) are golden fixtures: every one audits with this
# build and passes `gate --policy correct` with nothing stale against this tree (a kernel changed
# without a fresh receipt fails here, as `kgate gate --against-tree` would), has its md and html reports beside it, and each folder's INDEX.md is what `kgate index` prints.
source "$(dirname "$0")/lib.sh"
cd "$SRC"
mapfile -t dirs < <(find receipts -mindepth 2 -maxdepth 2 -type d | sort)
[ "${#dirs[@]}" -gt 0 ]; check "receipt folders exist (${dirs[*]})" 0 $?
mapfile -t all < <(find receipts -mindepth 3 -maxdepth 3 -name '*.json' ! -name '*.samples.json' \
  ! -name '*.sanitize.json' ! -name '*.accept.json' | sort)
[ "${#all[@]}" -gt 0 ]; check "receipts exist (${#all[@]})" 0 $?
# receipts/ holds receipts, their sidecars, and what kgate renders from them: nothing else. Statements
# (R.sanitize.json, R.accept.json) are audited with their receipts; sanitizer logs lie in R.sanitize.logs/;
# R.report.png is a screenshot of R's html report.
stray=$(find receipts -type f ! -name '*.json' ! -name '*.report.md' ! -name '*.report.html' ! -name INDEX.md \
  ! -path '*.sanitize.logs/*.log' ! -name '*.report.png')
[ -z "$stray" ]; check "receipts/ holds only receipts, sidecars, reports and indexes: ${stray:-none other}" 0 $?
# A screenshot of a report (R.report.png: what a reviewer sees first) stands beside its receipt.
for png in $(find receipts -name '*.report.png'); do
  [ -f "${png%.report.png}.json" ]; check "$png beside its receipt" 0 $?
done
"$KGATE" audit "${all[@]}" > "$WORK/audit.txt"; check "audit every committed receipt" 0 $?
for d in "${dirs[@]}"; do
  "$KGATE" index "$d" > "$WORK/index.md"; check "index $d" 0 $?
  cmp -s "$WORK/index.md" "$d/INDEX.md"; check "$d/INDEX.md is kgate index's" 0 $?
done
for r in "${all[@]}"; do
  # Every arm correct on every row, nothing stale. Whether each row passes the receipt's own policy is
  # the receipt's result (INDEX.md prints it), not a property of this tree.
  "$KGATE" gate "$r" --policy correct --against-tree . >/dev/null; check "gate correct, nothing stale: $r" 0 $?
  [ -f "${r%.json}.report.md" ] && [ -f "${r%.json}.report.html" ]; check "reports beside $r" 0 $?
  # The md report is a pull-request body: under 60,000 characters (GitHub holds 65,536), and what
  # kgate report prints for the receipt now.
  [ "$(wc -m <"${r%.json}.report.md")" -lt 60000 ]; check "md report under 60,000 characters: $r" 0 $?
  "$KGATE" report "$r" --format md | cmp -s - "${r%.json}.report.md"; check "md report is kgate report's: $r" 0 $?
  "$KGATE" carryover "$r" --json > "$WORK/carryover.json"; check "carryover $r" 0 $?
done
for d in "${dirs[@]}"; do
  # The carryover of a receipt of several baselines and CUPTI activity: one entry per row and baseline, both
  # arms split into samples after the other arm and repeats that add up to the recorded counts (72 a pair:
  # 3 groups x 6 blocks x 2 letters x 2 samples), and the candidate's kernels split too.
  if [ -f "$d/sparse_mla_fast_vs_baseline.json" ]; then
    "$KGATE" carryover "$d/sparse_mla_fast_vs_baseline.json" --json > "$WORK/carryover.json"
    python3 - "$WORK/carryover.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["baselines"] == ["sparse_mla.baseline", "sparse_mla.floor"], j["baselines"]
assert len(j["pairs"]) == 94 * 2, len(j["pairs"])
for p in j["pairs"]:
    for side in ("candidate", "baseline_arm"):
        s = p[side]
        assert s["n_after_other"] + s["n_repeat"] == 72 and s["n_after_other"] > 0, (p["row"], side, s)
assert any(a["arm"] == "sparse_mla.fast" for p in j["pairs"] for a in p["activities"]), "no kernel split"
PY
    check "$d: carryover of the 3-arm sparse_mla receipt: every pair split, 72 samples an arm" 0 $?
  fi
  if [ -f "$d/calib_aa.json" ]; then
    "$KGATE" gate "$d/calib_aa.json" --policy 'correct,limit(0.01)' >/dev/null
    check "$d: calib A/A: candidate within 1 % of its twin" 0 $?
  fi
  if [ -f "$d/ssu_fast_source_vs_export.json" ]; then
    "$KGATE" gate "$d/ssu_fast_source_vs_export.json" --policy 'correct,parity,fallback,limit(0.045)' >/dev/null
    check "$d: ssu.fast bundled and exported: the same kernels, within 4.5 %" 0 $?
  fi
  python3 - "$d" <<'PY'
import json, os, sys
d = sys.argv[1]
def rows(name):
    path = os.path.join(d, name)
    return json.load(open(path))["body"]["predicate"]["rows"] if os.path.exists(path) else []
# A/A is never resolved faster, on any receipt that holds A/A pairs.
for name in ("calib_aa.json", "calib_94_cost.json", "calib_copy_warm.json"):
    for row in rows(name):
        assert row["verdicts"]["raw"]["strict"] is False, (name, row["id"], row["pairs"][0]["ratio_ci"])
# Drift within 2 % on every A/A row but the empty kernel (0.67 us: its samples are two timer
# steps, so a group's median flips between them; harness/gpu/NOTES.md).
for row in rows("calib_aa.json"):
    assert row["id"] == "spin-0us" or row["pairs"][0]["drift"] <= 0.02, (row["id"], row["pairs"][0]["drift"])
# The same spin 2 % longer is always resolved; its twin never.
for row in rows("calib_longer.json"):
    v = row["verdicts"]["raw"]["by_baseline"]
    assert v["calib.spin_longer"]["strict"] is True and v["calib.spin_twin"]["strict"] is False, row["id"]
# ssu.fast vs FlashInfer's stock kernel (cases/policies/ssu_vs_flashinfer.json): FlashInfer refuses the
# unaligned fused row (its x stride is not 16-byte aligned), a refusal the policy accepts: that pair is
# unmeasured and the out-of-place copy and the floor are still judged on the row.
for row in rows("ssu_fast_vs_flashinfer_stock.json"):
    if row["id"] == "ssu-mamba2-2.7b-bf16-b16-fused-unaligned":
        assert [a.rsplit(":", 1)[-1] for a in row["refused"]] == ["ssu.flashinfer_stock"], row.get("refused")
        assert row["disposition"] == "passed" and row["verdicts"]["policy"] is True, row["verdicts"]
        assert row["pairs"][0]["ratio"] is None and row["pairs"][1]["ratio"] is not None, row["pairs"]
PY
  check "$d: A/A never strict; a 2 % longer spin always strict; A/A drift <= 2 % above the empty kernel; FlashInfer's refusal accepted" 0 $?
done
finish
