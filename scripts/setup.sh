#!/usr/bin/env bash
# Installs every Debian package kgate's build and tests need, then the independent DSSE verifier
# (pinned PyPI securesystemslib + cryptography) into build-pyverify/venv for e2e.dsse_verify.
# Idempotent; runs apt-get update once. The CUDA toolkit is optional (GPU backend); without it
# kgate builds with the CPU backend only.
set -euo pipefail
pkgs=(cmake ninja-build g++ make pkg-config git python3
      nlohmann-json3-dev libcli11-dev libeigen3-dev libssl-dev libbenchmark-dev libgtest-dev googletest libmuparser-dev
      chromium fonts-dejavu-core python3-venv universal-ctags)  # chromium: the html report test renders the page headless; universal-ctags: the function-size check
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#pkgs[@]} packages present"
else
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "setup: installed ${missing[*]}"
fi

# The DSSE verifier the tests check signed receipts with (Debian's python3-securesystemslib has
# no dsse module), and NVIDIA's cuobjdump, which e2e.cuda_archs lists the GPU build's machine code
# with (the pip CUDA toolkit has none). Pinned, wheels only, with their dependencies; skipped when
# already in place.
venv="$(cd "$(dirname "$0")/.." && pwd)/build-pyverify/venv"
pins=(securesystemslib==1.6.0 cryptography==50.0.2 cffi==2.1.1 pycparser==3.12 nvidia-cuda-cuobjdump==13.2.51)
pinned() {
  "$venv/bin/python" - "${pins[@]}" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(any(version(n) != v for n, v in (p.split("==") for p in sys.argv[1:])))
PY
}
if pinned; then
  echo "setup: DSSE verifier venv present (${pins[*]})"
else
  "$venv/bin/python" -c "" 2>/dev/null || { rm -rf "$venv"; python3 -m venv "$venv"; }
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: "${pins[@]}"
  pinned || { echo "setup: $venv does not hold ${pins[*]}" >&2; exit 1; }
  echo "setup: installed ${pins[*]} into $venv"
fi
