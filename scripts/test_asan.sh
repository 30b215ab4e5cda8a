#!/usr/bin/env bash
# CPU tests (unit + e2e) under AddressSanitizer and UndefinedBehaviorSanitizer: the `asan` preset
# (build-asan/, -O1 -g1, no CUDA, no benchmarks). The e2e scripts run build-asan's kgate.
# Run after scripts/test.sh (which installs the packages). Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan -j2 "$@"
echo "test_asan: $(( $(date +%s) - start )) s"
