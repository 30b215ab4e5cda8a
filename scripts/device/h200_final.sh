#!/usr/bin/env bash
# One call: the A/A calib receipt (drift policy), then the two ssu receipts. Tars after each.
set -uo pipefail
source "$(dirname "$0")/env.sh"
"$K" run --quiet --cases cases/calib.json --candidate calib.spin --baseline calib.spin_twin \
  --policy 'correct,drift(0.02)' --out "$R/calib_aa.json"
python3 scripts/calib_table.py "$R/calib_aa.json" | tail -15
bash scripts/device/h200_ssu.sh "$1"
