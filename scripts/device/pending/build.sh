#!/usr/bin/env bash
# Builds the kernels that wait for a device as folders under .dev, from main's head and what this folder holds, packed
# as .dev/pending.tar.xz (the carry limit: the tree and every carried path share 64 MiB; a build is ~15 MB raw).
#   tr  main + ws_trace.py (diagnostic, never to land): clock64 stamps of the warp-specialized kernel's roles, written
#       by kgate to KGATE_WS_TRACE_FILE (scripts/ws_trace_summary.py reads them); kgate only
# Session 27 landed issue14-racecl and issue14-cl-relaxed (receipts of 2026-12-05) and measured issue14-cl-depth2 and
# issue14-comb-occ6 slower (kernels/sparse_mla/NOTES.md, "Session 27"); their patches are in git history (dd64156).
# A new patch waiting for a device goes here as NAME.patch with a stack line below.
# Usage: bash scripts/device/pending/build.sh   (from the repository root; ~2 min after a configured build/)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
P=scripts/device/pending
git diff --quiet HEAD -- kernels ':!kernels/*/NOTES.md' ||
  { echo "build.sh: kernels/ has uncommitted source changes; start from main's head" >&2; exit 2; }
[ -f build/build.ninja ] || cmake --preset default > /dev/null
stack() {  # NAME: build and copy out
  cmake --build build --target kgate kgate_gpu_tests > "/tmp/pending_build_$1.log" 2>&1 ||
    { tail -30 "/tmp/pending_build_$1.log" >&2; exit 1; }
  mkdir -p ".dev/$1"; cp build/kgate build/tests/kgate_gpu_tests ".dev/$1/"
  echo "built .dev/$1 ($(git diff --stat -- kernels | tail -1))"
}
traced() {  # NAME: the tree's sources with ws_trace.py's stamps, built as NAME; the sources put back after
  local keep; keep=$(mktemp -d)
  cp kernels/sparse_mla/fast_ws.cuh kernels/sparse_mla/launch.cu "$keep/"
  python3 "$P/ws_trace.py"
  stack "$1"
  cp "$keep/fast_ws.cuh" "$keep/launch.cu" kernels/sparse_mla/; rm -rf "$keep"
}
traced tr
cmake --build build --target kgate kgate_gpu_tests > /dev/null  # build/ back to main's sources
tar -C .dev -cf - tr/kgate | xz -6 -T2 > .dev/pending.tar.xz
ls -la .dev/pending.tar.xz
