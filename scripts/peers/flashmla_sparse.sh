#!/usr/bin/env bash
# Builds libkgate_flashmla_sparse.so: FlashMLA's SM90 sparse decode (FP8 KV, MODEL1) behind kgate's
# export ABI (harness/export/kgate_export.h), with our adapter peers/flashmla_sparse/adapter.cu in
# place of FlashMLA's torch API file. Not part of kgate's CMake build or CI; output under
# build-peers/ (git-ignored). See peers/flashmla_sparse/README.md.
set -euo pipefail

readonly PEER=flashmla_sparse
readonly PIN=9241ae3ef9bac614dd25e45e507e089f888280e0          # deepseek-ai/FlashMLA
readonly CUTLASS_PIN=147f5673d0c1c3dcf66f78d677fd647e4a020219  # NVIDIA/cutlass, FlashMLA's csrc/cutlass at PIN
readonly REPO_URL=https://github.com/deepseek-ai/FlashMLA

usage() {
  cat <<EOF
usage: scripts/peers/flashmla_sparse.sh [--src DIR] [--cutlass DIR] [--out DIR] [--jobs N]
                                        [--allow-other-commit] [--help]

Builds the kgate export of FlashMLA ${PIN:0:7} sparse decode (sm_90a) into OUT/libkgate_${PEER}.so
and writes OUT/build.json (pins, nvcc version, flags, sources, the library's sha256).

  --src DIR             a git checkout of FlashMLA at ${PIN:0:7} (csrc/cutlass populated, or give
                        --cutlass). Without it: git clone $REPO_URL into OUT/src
                        and check out the pin and its cutlass submodule (needs network).
  --cutlass DIR         CUTLASS at ${CUTLASS_PIN:0:8} (a checkout or a tree with include/ and
                        tools/util/include/); default DIR/csrc/cutlass of --src.
  --out DIR             output directory (default build-peers/$PEER).
  --jobs N              parallel nvcc processes (default: the number of cores).
  --allow-other-commit  build a FlashMLA (or CUTLASS) checkout that is not at the pin.
  --help                this text.
Environment: NVCC (default \$CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc, or nvcc on PATH).
EOF
}

die() { echo "flashmla_sparse.sh: $*" >&2; exit 1; }

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SRC="" CUTLASS="" OUT="$ROOT/build-peers/$PEER" JOBS=$(nproc 2>/dev/null || echo 2) ALLOW_OTHER=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --src) [[ $# -ge 2 ]] || die "--src needs a directory"; SRC=$2; shift 2 ;;
    --cutlass) [[ $# -ge 2 ]] || die "--cutlass needs a directory"; CUTLASS=$2; shift 2 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a directory"; OUT=$2; shift 2 ;;
    --jobs) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive integer"; JOBS=$2; shift 2 ;;
    --allow-other-commit) ALLOW_OTHER=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done

# --- tools --------------------------------------------------------------------------------------
if [[ -z "${NVCC:-}" ]]; then
  for c in "${CUDA_HOME:-}/bin/nvcc" /usr/local/cuda/bin/nvcc "$(command -v nvcc || true)"; do
    [[ -n "$c" && -x "$c" ]] && { NVCC=$c; break; }
  done
fi
[[ -n "${NVCC:-}" && -x "$NVCC" ]] || die "nvcc not found (set NVCC or CUDA_HOME)"
NVCC_VERSION=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\), \(V[0-9.]*\).*/\1 (\2)/p')
[[ -n "$NVCC_VERSION" ]] || die "cannot read the version of $NVCC"
nv_major=${NVCC_VERSION%%.*}
(( nv_major >= 12 )) || die "nvcc $NVCC_VERSION: sm_90a needs CUDA 12 or newer"
command -v git >/dev/null || die "git not found"
command -v sha256sum >/dev/null || die "sha256sum not found"
command -v python3 >/dev/null || die "python3 not found (writes build.json)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# --- sources ------------------------------------------------------------------------------------
if [[ -z "$SRC" ]]; then
  SRC="$OUT/src"
  if [[ ! -d "$SRC/.git" ]]; then
    echo "-- cloning $REPO_URL into $SRC"
    git clone --quiet "$REPO_URL" "$SRC" ||
      die "git clone $REPO_URL failed (no network?). Clone it elsewhere, check out $PIN with its csrc/cutlass submodule, and pass --src DIR (or --src DIR --cutlass DIR)."
  fi
  git -C "$SRC" checkout --quiet "$PIN" || die "cannot check out $PIN in $SRC"
  git -C "$SRC" submodule update --init --quiet csrc/cutlass ||
    die "cannot fetch the csrc/cutlass submodule in $SRC (no network?); pass --cutlass DIR"
fi
[[ -d "$SRC" ]] || die "--src $SRC: not a directory"
SRC=$(cd "$SRC" && pwd)
[[ -f "$SRC/csrc/params.h" && -f "$SRC/setup.py" ]] || die "--src $SRC: not a FlashMLA tree (no csrc/params.h, setup.py)"

# The commit of the checkout rooted at $1 (not of a repository around it), or "unknown".
head_of() {
  local top
  top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) && [[ "$(cd "$top" && pwd -P)" == "$(cd "$1" && pwd -P)" ]] &&
    git -C "$1" rev-parse HEAD 2>/dev/null || echo unknown
}
COMMIT=$(head_of "$SRC")
if [[ "$COMMIT" != "$PIN" ]]; then
  (( ALLOW_OTHER )) || die "--src $SRC is at $COMMIT, not the pin $PIN (--allow-other-commit to build it anyway)"
  echo "-- warning: FlashMLA at $COMMIT, not the pin $PIN" >&2
fi

[[ -n "$CUTLASS" ]] || CUTLASS="$SRC/csrc/cutlass"
[[ -d "$CUTLASS" ]] || die "cutlass $CUTLASS: not a directory (populate csrc/cutlass or pass --cutlass)"
CUTLASS=$(cd "$CUTLASS" && pwd)
[[ -f "$CUTLASS/include/cutlass/cutlass.h" && -d "$CUTLASS/tools/util/include" ]] ||
  die "cutlass $CUTLASS: no include/cutlass/cutlass.h or tools/util/include (git submodule update --init csrc/cutlass, or --cutlass DIR)"
CUTLASS_COMMIT=$(head_of "$CUTLASS")
if [[ "$CUTLASS_COMMIT" != "$CUTLASS_PIN" ]]; then
  (( ALLOW_OTHER )) || die "cutlass $CUTLASS is at $CUTLASS_COMMIT, not the pin $CUTLASS_PIN (a git checkout is needed to verify it; --allow-other-commit to build it anyway)"
  echo "-- warning: CUTLASS at $CUTLASS_COMMIT, not the pin $CUTLASS_PIN" >&2
fi
# The FlashMLA tree's own submodule pointer must name the same CUTLASS.
SUBMODULE=$(git -C "$SRC" rev-parse "HEAD:csrc/cutlass" 2>/dev/null || echo unknown)
if [[ "$SUBMODULE" != "$CUTLASS_PIN" ]]; then
  (( ALLOW_OTHER )) || die "FlashMLA's csrc/cutlass submodule points at $SUBMODULE, not $CUTLASS_PIN"
fi

# Only what sparse decode with FP8 MODEL1 KV on SM90 runs (the v32 and dense instantiations, the
# prefill and SM100 sources, and csrc/api/*, which is torch, are left out).
FLASHMLA_SOURCES=(
  csrc/smxx/decode/get_decoding_sched_meta/get_decoding_sched_meta.cu
  csrc/smxx/decode/combine/combine.cu
  csrc/sm90/decode/sparse_fp8/instantiations/model1_persistent_h64.cu
  csrc/sm90/decode/sparse_fp8/instantiations/model1_persistent_h128.cu
)
ADAPTER=peers/flashmla_sparse/adapter.cu
for s in "${FLASHMLA_SOURCES[@]}"; do [[ -f "$SRC/$s" ]] || die "$SRC/$s: missing (a FlashMLA tree of another layout?)"; done
[[ -f "$ROOT/$ADAPTER" ]] || die "$ROOT/$ADAPTER: missing"

# --- flags --------------------------------------------------------------------------------------
# FlashMLA's setup.py nvcc flags at the pin, for the sm_90a target only (FLASH_MLA_DISABLE_SM100).
# Left out: --threads (it only parallelizes over several -gencode targets; there is one).
SETUP_FLAGS=(
  -O3 -std=c++20 -DNDEBUG -D_USE_MATH_DEFINES -Wno-deprecated-declarations
  -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ -U__CUDA_NO_HALF2_OPERATORS__
  -U__CUDA_NO_BFLOAT16_CONVERSIONS__
  --expt-relaxed-constexpr --expt-extended-lambda --use_fast_math
  --ptxas-options=-v,--register-usage-level=10,--warn-on-spills,--warn-on-local-memory-usage,--warn-on-double-precision-use
  -lineinfo --source-in-ptx
  -gencode arch=compute_90a,code=sm_90a
)
INCLUDES=(-I"$SRC/csrc" -I"$SRC/csrc/kerutils/include" -I"$SRC/csrc/sm90"
          -I"$CUTLASS/include" -I"$CUTLASS/tools/util/include")
# Ours: position-independent code for the shared library; the adapter also sees kgate's headers.
PIC_FLAGS=(-Xcompiler -fPIC)
ADAPTER_FLAGS=(-I"$ROOT")
# kgate links the shared CUDA runtime (CUDA::cudart in CMakeLists.txt), so the library does too:
# one runtime in the process, so the stream kgate passes, the current device and the error state
# are the ones FlashMLA's launchers see (nvcc's default, a static cudart copy in the .so, would be
# a second runtime instance). No -lcuda: CUTLASS reaches cuTensorMapEncodeTiled through
# cudaGetDriverEntryPoint (CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL unset).
# The version script keeps every symbol but kgate_export_table local: no C++ crosses the ABI.
EXPORTS_MAP="$OUT/exports.map"
LINK_FLAGS=(-shared --cudart shared "${PIC_FLAGS[@]}" -gencode arch=compute_90a,code=sm_90a
            -Xlinker --no-undefined -Xlinker "--version-script=$EXPORTS_MAP")

# --- build --------------------------------------------------------------------------------------
OBJ="$OUT/obj"
rm -rf "$OBJ"
mkdir -p "$OBJ"
LIB="$OUT/libkgate_$PEER.so"
rm -f "$LIB" "$OUT/build.json"
echo "-- FlashMLA $COMMIT, CUTLASS $CUTLASS_COMMIT, nvcc $NVCC_VERSION, $JOBS jobs -> $OUT"
start=$(date +%s)

compile() {  # compile SRC_FILE OBJ_FILE LOG EXTRA_FLAGS...
  local src=$1 obj=$2 log=$3
  shift 3
  local t0=$(date +%s)
  if "$NVCC" "${SETUP_FLAGS[@]}" "${PIC_FLAGS[@]}" "${INCLUDES[@]}" "$@" -c "$src" -o "$obj" >"$log" 2>&1; then
    echo "   $(basename "$src"): $(( $(date +%s) - t0 )) s"
  else
    echo "   $(basename "$src"): FAILED, see $log" >&2
    tail -n 30 "$log" >&2
    touch "$obj.failed"
    return 1
  fi
}

declare -a objs=()
i=0
for s in "${FLASHMLA_SOURCES[@]}" "$ADAPTER"; do
  if [[ "$s" == "$ADAPTER" ]]; then abs="$ROOT/$s"; extra=("${ADAPTER_FLAGS[@]}"); else abs="$SRC/$s"; extra=(); fi
  o="$OBJ/$i.$(basename "${s%.cu}").o"
  objs+=("$o")
  while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || true; done
  compile "$abs" "$o" "$o.log" "${extra[@]}" &
  i=$((i + 1))
done
wait
! compgen -G "$OBJ/*.failed" >/dev/null || die "compilation failed (logs under $OBJ)"

printf '{\n  global: kgate_export_table;\n  local: *;\n};\n' >"$EXPORTS_MAP"
"$NVCC" "${LINK_FLAGS[@]}" "${objs[@]}" -o "$LIB" >"$OBJ/link.log" 2>&1 || { cat "$OBJ/link.log" >&2; die "link failed"; }
seconds=$(( $(date +%s) - start ))
nm -D --defined-only "$LIB" | grep -qw kgate_export_table || die "$LIB does not export kgate_export_table"
SHA=$(sha256sum "$LIB" | cut -d' ' -f1)

# --- record -------------------------------------------------------------------------------------
ADAPTER_COMMIT=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
ADAPTER_DIRTY=$(git -C "$ROOT" status --porcelain -- "$ADAPTER" 2>/dev/null | head -c1)
ADAPTER_SHA=$(sha256sum "$ROOT/$ADAPTER" | cut -d' ' -f1)
export PEER COMMIT CUTLASS_COMMIT NVCC NVCC_VERSION SHA LIB seconds ADAPTER ADAPTER_COMMIT ADAPTER_DIRTY ADAPTER_SHA SRC CUTLASS ROOT
python3 - "$OUT/build.json" \
  "${SETUP_FLAGS[*]}" "${PIC_FLAGS[*]}" "${INCLUDES[*]}" "${ADAPTER_FLAGS[*]}" "${LINK_FLAGS[*]}" \
  "${FLASHMLA_SOURCES[@]}" <<'EOF'
import json, os, sys
out, setup, pic, inc, adapter_flags, link, *sources = sys.argv[1:]
e = os.environ
record = {
    "peer": e["PEER"],
    "library": os.path.basename(e["LIB"]),
    "sha256": e["SHA"],
    "flashmla": {"repo": "deepseek-ai/FlashMLA", "commit": e["COMMIT"], "src": e["SRC"]},
    "cutlass": {"repo": "NVIDIA/cutlass", "commit": e["CUTLASS_COMMIT"], "src": e["CUTLASS"]},
    "adapter": {"path": e["ADAPTER"], "sha256": e["ADAPTER_SHA"], "kgate_commit": e["ADAPTER_COMMIT"],
                "dirty": bool(e["ADAPTER_DIRTY"])},
    "nvcc": {"path": e["NVCC"], "version": e["NVCC_VERSION"]},
    "flags": {"compile": setup.split(" ") + pic.split(" "), "includes": inc.split(" "),
              "adapter_extra": adapter_flags.split(" "), "link": link.split(" ")},
    "sources": sources + [e["ADAPTER"]],
    "build_seconds": int(e["seconds"]),
}
with open(out, "w") as f:
    json.dump(record, f, indent=2)
    f.write("\n")
EOF
# No machine path in the manifest: the build's folders by placeholders.
python3 "$ROOT/scripts/peers/portable_manifest.py" "$OUT/build.json" "$OUT=\$OUT" "$ROOT=\$KGATE" "$SRC=\$FLASHMLA" \
  "$CUTLASS=\$CUTLASS" "$(dirname "$(dirname "$NVCC")")=\$CUDA_HOME"
echo "-- $LIB ($seconds s)"
echo "   sha256 $SHA"
echo "   $OUT/build.json"
