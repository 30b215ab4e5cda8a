#!/usr/bin/env bash
# Builds the kernels that wait for a device as folders under .dev, one per patch stack, from main's head and the
# patches in this folder (session 26 wrote them with no device lent; a new checkout keeps only main, so they travel
# as patches, not branches). Each folder holds kgate and kgate_gpu_tests. The working tree ends as main's head plus
# the first stack's patches (the receipts digest the carried tree's kernel sources: run the receipts of `rc` with the
# tree as this leaves it).
#   rc  issue14-racecl.patch: the stage release under the 2-CTA cluster by every consumer thread on its own CTA's
#       barrier, lane 0 of each warp on the peer's (session 25 call 3 measured the same change on a branch since lost:
#       racecheck 0 hazards on mla-43 and -42, times level); launch.cu's cluster comment without the branch history
#   oc  rc + issue14-comb-occ6.patch: the combine kernel at six CTAs an SM (40 registers) instead of four
#   cr  rc + issue14-cl-relaxed.patch: the 2-CTA cluster's barriers at entry and exit with a relaxed arrive (no
#       MEMBAR.ALL.GPU), the producer waiting for its stages' last releases before its exit barrier
#   c2  cr + issue14-cl-depth2.patch: under the cluster the FP8 producer holds two blocks' rows in registers, so a
#       row's gather overlaps two block steps
#   tr  rc + ws_trace.py (diagnostic, never to land): clock64 stamps of the warp-specialized kernel's roles, written
#       by kgate to KGATE_WS_TRACE_FILE (scripts/ws_trace_summary.py reads them); kgate only
#   t2  c2 + ws_trace.py: the same stamps on c2's kernel (its cluster producer loop too); kgate only
#   cro, c2o  cr + issue14-comb-occ6.patch, c2 + the same (session 27: the cluster patches change only the cluster
#       kernel and occ6 only the combine, which the cluster rows do not run, so one call can measure each alone and
#       take the receipts of the pair)
# Then packs the binaries as .dev/s26.tar.xz (the carry limit: the tree and every carried path share 64 MiB; each
# build is ~15 MB raw). Usage: bash scripts/device/pending/build.sh   (from the repository root; ~4 min on 2 cores
# after a configured build/, ~10 from nothing)
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
traced() {  # NAME: the stack's sources with ws_trace.py's stamps, built as NAME; the sources put back after
  local keep; keep=$(mktemp -d)
  cp kernels/sparse_mla/fast_ws.cuh kernels/sparse_mla/launch.cu "$keep/"
  python3 "$P/ws_trace.py"
  stack "$1"
  cp "$keep/fast_ws.cuh" "$keep/launch.cu" kernels/sparse_mla/; rm -rf "$keep"
}
git apply "$P/issue14-racecl.patch"
traced tr
git apply "$P/issue14-cl-relaxed.patch"
stack cr
git apply "$P/issue14-cl-depth2.patch"
stack c2
traced t2
git apply "$P/issue14-comb-occ6.patch"
stack c2o
git apply -R "$P/issue14-cl-depth2.patch"
stack cro
git apply -R "$P/issue14-cl-relaxed.patch"
stack oc
git apply -R "$P/issue14-comb-occ6.patch"
stack rc
tar -C .dev -cf - rc/kgate rc/kgate_gpu_tests oc/kgate oc/kgate_gpu_tests cr/kgate cr/kgate_gpu_tests c2/kgate c2/kgate_gpu_tests tr/kgate t2/kgate \
  cro/kgate cro/kgate_gpu_tests c2o/kgate c2o/kgate_gpu_tests | xz -6 -T2 > .dev/s26.tar.xz
ls -la .dev/s26.tar.xz
echo "tree: main + issue14-racecl.patch (the rc build's sources)"
