#!/usr/bin/env bash
# Set up, build, and run every test (unit, end-to-end; GPU tests skip cleanly without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default
ctest --preset default -j2 "$@"
