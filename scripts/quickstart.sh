#!/usr/bin/env bash
# Set up, build, and run the default suite, then audit its receipts: on a machine with an NVIDIA
# GPU the GPU build and arms; without one the CPU preset (no CUDA compile: minutes, not a quarter
# hour) and the CPU arms, and it says so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  preset=default build=build
else
  preset=cpu build=build-cpu
  echo "quickstart: no NVIDIA GPU here: building the CPU preset ($build/) and running the CPU suite"
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
"./$build/kgate" run --out-dir out --force  # a re-run replaces the receipts it made before
"./$build/kgate" audit $(ls out/*.json | grep -v "\.samples\.json$")
