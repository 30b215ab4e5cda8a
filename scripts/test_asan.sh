#!/usr/bin/env bash
# CPU tests (unit + e2e) under AddressSanitizer and UndefinedBehaviorSanitizer: the `asan` preset
# (build-asan/, -O1 -g1, no CUDA, no benchmarks). The e2e scripts run build-asan's kgate.
# Run after scripts/test.sh (which installs the packages). Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
cmake --preset asan >/dev/null
cmake --build --preset asan
# Excluded, by name:
# - e2e.isolate: its child process dies of SIGSEGV on purpose (a faulting kernel) and the test
#   checks that the signal is recorded; ASan's SEGV handler turns that death into exit 1.
# - ReceiptTest.EverySingleByteChangeIsCaught: a flipped byte in a key makes derive_row read a
#   missing key through const json& (heap-use-after-free under ASan). Known; audit's shape
#   validation is being fixed on another branch (see kAuditShapeValidationLanded in
#   tests/unit/test_fuzz.cpp): drop this exclusion when it lands.
exclude='^(e2e\.isolate|ReceiptTest\.EverySingleByteChangeIsCaught)$'
ctest --preset asan -j2 -E "$exclude" "$@"
echo "test_asan: $(( $(date +%s) - start )) s"
