#!/usr/bin/env bash
# Set up, build, and run the default suite, then audit its receipts: on a machine with an NVIDIA
# GPU the GPU build (for that GPU's architecture) and arms; without one the CPU preset (no CUDA compile: minutes, not a quarter
# hour) and the CPU arms, and it says so.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
arch=()
if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  preset=default build=build
  # Machine code for this GPU's architecture alone (the full build makes sm_80, sm_90a and sm_100a):
  # compute capability 9.0 -> 90a, 10.0 -> 100a (the arch-specific targets the tuned arms need), 8.x as is.
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  case "$cap" in
    90 | 100) arch=(-DCMAKE_CUDA_ARCHITECTURES="${cap}a-real") ;;
    [0-9]*) arch=(-DCMAKE_CUDA_ARCHITECTURES="${cap}-real") ;;
  esac
  [ "${#arch[@]}" -eq 0 ] || echo "quickstart: building for this GPU alone (${arch[0]#-D})"
else
  preset=cpu build=build-cpu
  echo "quickstart: no NVIDIA GPU here: building the CPU preset ($build/) and running the CPU suite"
fi
cmake --preset "$preset" "${arch[@]}" >/dev/null
cmake --build --preset "$preset"
"./$build/kgate" run --out-dir out --force  # a re-run replaces the receipts it made before
"./$build/kgate" audit $(ls out/*.json | grep -v "\.samples\.json$")
