#!/usr/bin/env bash
# Installs every Debian package kgate's build and tests need. Idempotent; runs apt-get update once.
# The CUDA toolkit is optional (GPU backend); without it kgate builds with the CPU backend only.
set -euo pipefail
pkgs=(cmake ninja-build g++ make pkg-config git python3
      nlohmann-json3-dev libcli11-dev libeigen3-dev libssl-dev libbenchmark-dev libgtest-dev googletest
      chromium fonts-dejavu-core python3-venv)  # chromium: the html report test renders the page headless
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#pkgs[@]} packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: installed ${missing[*]}"
