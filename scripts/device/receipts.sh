#!/usr/bin/env bash
# Re-makes every committed receipt of this GPU model in one call: `kgate rerun` of each receipt's
# recorded campaign, then each receipt's md and html reports and the folder's INDEX.md (kgate
# index), all from the receipts alone. Old -> new compares go to the log, not to receipts/.
#
# usage: scripts/device/receipts.sh [--build DIR] [--peers DIR] [--from DIR] [--log FILE]
#   --build DIR  a build of kgate (default build/; configured and built here when it has no kgate)
#   --peers DIR  the export libraries the receipts name (scripts/peers/*.sh, kgate export); default build-peers
#   --from DIR   the receipts to re-run (default: receipts/<arch>/<gpu>/ for this GPU, e.g. receipts/sm_90/h100;
#                when that folder holds none, another GPU's folder, so a new model gets its first set)
#   --log FILE   where the compares go (default: stdout)
# The new receipts go to receipts/<arch>/<gpu>/ (replacing the old ones when --from is that folder).
# Every campaign of scripts/device/campaigns.sh whose receipt that folder does not hold is then made
# from its definition, so one call makes the whole set from none; rerun re-makes them after that.
# Exit: 0 every receipt re-made and passing its policy, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build peers=build-peers from="" log=/dev/stdout
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --peers) peers=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "receipts.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
K=$build/kgate
if [ ! -x "$K" ]; then
  cmake --preset default >/dev/null && cmake --build --preset default --target kgate
fi
source scripts/device/gpu_folder.sh
to=$(gpu_folder "$K")
arch=$(basename "$(dirname "$to")") gpu=$(basename "$to")
if [ -z "$from" ]; then
  from=$to
  if ! ls "$from"/*.json >/dev/null 2>&1; then
    from=$(ls -d receipts/"$arch"/*/ 2>/dev/null | grep -v "/$gpu/" | head -1)
    from=${from%/}
  fi
fi
mapfile -t old < <(ls "$from"/*.json 2>/dev/null | grep -Ev '\.(samples|sanitize|accept)\.json$' || true)
echo "receipts.sh: $gpu ($arch): re-making ${#old[@]} receipts of ${from:-no folder} into $to"
mkdir -p "$to"
start=$(date +%s)
rc=0
if [ "${#old[@]}" -gt 0 ]; then
  place=(--out-dir "$to" --force)
  [ "$(cd "$from" && pwd)" = "$(cd "$to" && pwd)" ] && place=(--replace)
  "$K" rerun "${old[@]}" --peers "$peers" "${place[@]}" > "$log" || rc=$?
  echo "receipts.sh: rerun exit $rc after $(($(date +%s) - start)) s"
fi
echo "receipts.sh: the campaigns that have no receipt here yet"
bash scripts/device/campaigns.sh --missing --build "$build" --peers "$peers" calib ssu sparse_mla ag_gemm tensor >> "$log" || rc=1
for r in "$to"/*.json; do
  case "$r" in *.samples.json | *.sanitize.json | *.accept.json) continue ;; esac
  "$K" report "$r" --format md --out "${r%.json}.report.md"
  "$K" report "$r" --format html --out "${r%.json}.report.html"
done
"$K" index "$to" --out "$to/INDEX.md"
echo "receipts.sh: done in $(($(date +%s) - start)) s; $to/INDEX.md"
exit $rc
