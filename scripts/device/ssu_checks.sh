#!/usr/bin/env bash
# GPU tests and the ssu smoke test on the device (part of every ssu receipts call).
set -uo pipefail
source "$(dirname "$0")/env.sh"
"$B/kgate_gpu_tests" 2>&1 | tail -3
bash tests/gpu/ssu_smoke.sh "$K" "$PWD" 2>&1 | tail -1
