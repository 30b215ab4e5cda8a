#!/usr/bin/env bash
# Set up, build, and run the default suite: GPU arms on a GPU machine, else the CPU backend.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default
./build/kgate run --out-dir out --force  # a re-run replaces the receipts it made before
./build/kgate audit $(ls out/*.json | grep -v "\.samples\.json$")
