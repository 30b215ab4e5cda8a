#!/usr/bin/env bash
# Hostile case tables, flags, policies and files for every command, and runs killed at random
# points (tests/e2e/fuzz.py, fixed seed): no crash, no hang, no exit code outside the contract,
# no file written outside the output folder a command was given.
source "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77
python3 "$SRC/tests/e2e/fuzz.py" "$KGATE" "$SRC" "${KGATE_FUZZ_SCALE:-1}"
check "fuzz: every count is 0" 0 $?
finish
