#!/usr/bin/env bash
# Builds libkgate_flashinfer_ssu.so: FlashInfer's stock selective_state_update (the pinned
# flashinfer-python wheel's header-only kernels) behind kgate's export ABI, adapter
# peers/flashinfer_ssu/adapter.cu. Not part of the CMake build or CI; see
# peers/flashinfer_ssu/README.md. Writes OUT/libkgate_flashinfer_ssu.so and OUT/build.json.
set -euo pipefail

readonly PEER=flashinfer_ssu
readonly PIN_NAME=flashinfer-python
readonly PIN_VERSION=0.7.2.post1
readonly PIN_SHA256=bfdc18b9e1e4d8d0730fe4343dc0e284cd0c160086de80f99888bc4867922d49
readonly PIN_WHEEL=flashinfer_python-${PIN_VERSION}-py3-none-any.whl
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

usage() {
  cat <<EOF
usage: scripts/peers/flashinfer_ssu.sh [--wheel PATH | --src DIR] [--out DIR] [--nvcc PATH]

Builds the kgate export library of FlashInfer ${PIN_VERSION}'s stock selective_state_update
(family ssu, arm flashinfer_stock) for sm_90a.

  --wheel PATH  a local ${PIN_WHEEL} (its sha256 must be the pinned one)
  --src DIR     FlashInfer headers already unpacked: a wheel root (DIR/flashinfer/data/include/
                flashinfer/mamba) or the wheel's data folder (DIR/include/flashinfer/mamba), with
                the vendored CCCL beside include/ (cccl/); not hash-checked, recorded as such
  (neither)     downloads the pinned wheel with pip and checks its sha256
  --out DIR     output folder (default: build-peers/${PEER})
  --nvcc PATH   nvcc to build with (default: \$NVCC, else nvcc on PATH, else /usr/local/cuda/bin/nvcc)
  --help        this text

Writes DIR/libkgate_${PEER}.so and DIR/build.json (the pin, the wheel's sha256, nvcc's version,
the exact compile command, the library's sha256).
EOF
}

die() {
  echo "flashinfer_ssu.sh: $*" >&2
  exit 2
}

wheel="" src="" out="" nvcc="${NVCC:-}"
while [ $# -gt 0 ]; do
  case "$1" in
    --wheel) [ $# -ge 2 ] || die "--wheel needs a path"; wheel="$2"; shift 2 ;;
    --src) [ $# -ge 2 ] || die "--src needs a directory"; src="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out="$2"; shift 2 ;;
    --nvcc) [ $# -ge 2 ] || die "--nvcc needs a path"; nvcc="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument '$1'" ;;
  esac
done

# Every check before any work: the inputs, the tools, the output folder.
[ -z "$wheel" ] || [ -z "$src" ] || die "--wheel and --src exclude each other"
command -v python3 >/dev/null || die "python3 is needed (wheel unpacking, build.json)"
command -v sha256sum >/dev/null || die "sha256sum is needed"
if [ -z "$nvcc" ]; then
  nvcc="$(command -v nvcc || true)"
  [ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
fi
[ -x "$nvcc" ] || die "nvcc '$nvcc' is not an executable (give --nvcc PATH)"
nvcc="$(cd "$(dirname "$nvcc")" && pwd)/$(basename "$nvcc")"
cuda_home="$(cd "$(dirname "$nvcc")/.." && pwd)"
stubs="$cuda_home/lib64/stubs"
[ -e "$stubs/libcuda.so" ] || die "no driver stub $stubs/libcuda.so beside nvcc (tensor maps need -lcuda)"
if [ -n "$wheel" ]; then
  [ -f "$wheel" ] || die "--wheel '$wheel': no such file"
  wheel="$(cd "$(dirname "$wheel")" && pwd)/$(basename "$wheel")"
fi
if [ -n "$src" ]; then
  [ -d "$src" ] || die "--src '$src': no such directory"
  src="$(cd "$src" && pwd)"
  if [ -d "$src/flashinfer/data/include/flashinfer/mamba" ]; then
    data="$src/flashinfer/data"
  elif [ -d "$src/include/flashinfer/mamba" ]; then
    data="$src"
  else
    die "--src '$src': neither flashinfer/data/include/flashinfer/mamba nor include/flashinfer/mamba below it"
  fi
  [ -d "$data/cccl/libcudacxx/include" ] || die "--src '$src': no vendored CCCL at $data/cccl (the toolkit's gives other code)"
fi
[ -f "$root/peers/$PEER/adapter.cu" ] || die "no adapter at $root/peers/$PEER/adapter.cu"
out="${out:-$root/build-peers/$PEER}"
mkdir -p "$out" || die "cannot create --out '$out'"
out="$(cd "$out" && pwd)"

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# The headers: from --src as they are, else from the wheel (given or downloaded), unpacked fresh.
wheel_sha="" wheel_origin=""
if [ -z "$src" ]; then
  if [ -z "$wheel" ]; then
    command -v pip >/dev/null || python3 -m pip --version >/dev/null 2>&1 || die "pip is needed to download the wheel (or give --wheel)"
    mkdir -p "$out/download"
    echo "flashinfer_ssu.sh: downloading ${PIN_NAME}==${PIN_VERSION}"
    python3 -m pip download "${PIN_NAME}==${PIN_VERSION}" --no-deps --only-binary=:all: -d "$out/download" -q
    wheel="$out/download/$PIN_WHEEL"
    [ -f "$wheel" ] || die "pip did not produce $wheel"
    wheel_origin="pip download ${PIN_NAME}==${PIN_VERSION}"
  else
    wheel_origin="$wheel"
  fi
  wheel_sha="$(sha_of "$wheel")"
  [ "$wheel_sha" = "$PIN_SHA256" ] || die "wheel $wheel: sha256 $wheel_sha, pinned $PIN_SHA256"
  rm -rf "$out/src"
  # Only what the build reads: the headers, the vendored CCCL, the build metadata.
  python3 - "$wheel" "$out/src" <<'PY'
import sys, zipfile
keep = ("flashinfer/data/include/", "flashinfer/data/cccl/cub/", "flashinfer/data/cccl/libcudacxx/include/",
        "flashinfer/data/cccl/thrust/", "flashinfer/_build_meta.py")
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith(keep)])
PY
  data="$out/src/flashinfer/data"
  [ -d "$data/include/flashinfer/mamba" ] || die "wheel $wheel: no flashinfer/data/include/flashinfer/mamba"
fi

# Version as the headers' package states it (flashinfer/_build_meta.py), when present.
meta="$(dirname "$data")/_build_meta.py"
read_meta() { [ -f "$meta" ] && sed -n "s/^$1 = \"\(.*\)\"$/\1/p" "$meta" || true; }
fi_version="$(read_meta __version__)"
fi_commit="$(read_meta __git_commit__)"
[ -z "$wheel_sha" ] || [ "$fi_version" = "$PIN_VERSION" ] || die "wheel states version '$fi_version', pinned $PIN_VERSION"
cccl_version="$(sed -n 's/^#define CCCL_VERSION \([0-9]*\)$/\1/p' "$data/cccl/libcudacxx/include/cuda/std/__cccl/version.h")"
[ -n "$cccl_version" ] || die "cannot read CCCL_VERSION from $data/cccl"

# FlashInfer's own JIT flags for this module (flashinfer/jit/core.py gen_jit_spec,
# jit/cpp_ext.py build_cuda_cflags, jit/mamba gen_selective_state_update_sm90_module), with
# -isystem for the vendored CCCL (nvcc puts the toolkit's CCCL on -isystem after ours; the
# adapter static_asserts the version) and for FlashInfer's headers (nvcc 13.0 stops on a
# narrowing conversion in them otherwise). The file-prefix maps keep the checkouts' paths out of
# FlashInfer's error messages (__FILE__; the last matching map wins, the headers' is last).
# cudart: shared, as FlashInfer's JIT links it. kgate links CUDA::cudart, the shared library
# (`ldd build/kgate` lists libcudart.so.13; its cudart symbols stay undefined, so the
# cudart_static CMake appends contributes nothing): the library's libcudart.so.13 is then the
# one kgate loaded, and the stream kgate hands over, the primary context and the runtime's
# error state are the same objects on both sides.
lib="$out/libkgate_${PEER}.so"
cmd=("$nvcc" -std=c++17 -O3 -DNDEBUG -use_fast_math --expt-relaxed-constexpr -static-global-template-stub=false
     -DFLASHINFER_ENABLE_F16 -DFLASHINFER_ENABLE_BF16 -DFLASHINFER_ENABLE_FP8_E4M3 -DFLASHINFER_ENABLE_FP8_E5M2
     -DFLASHINFER_MAMBA_ENABLE_SM90 "-DKGATE_FI_CCCL_VERSION=$cccl_version"
     -gencode arch=compute_90a,code=sm_90a
     -isystem "$data/cccl/cub" -isystem "$data/cccl/libcudacxx/include" -isystem "$data/cccl/thrust"
     -isystem "$data/include" -I "$root"
     -Xcompiler "-ffile-prefix-map=$root=kgate" -Xcompiler "-ffile-prefix-map=$data=flashinfer/data"
     -shared -Xcompiler -fPIC -Xcompiler -fvisibility=hidden -cudart shared
     -L "$stubs" -lcuda
     "$root/peers/$PEER/adapter.cu" -o "$lib.tmp")

echo "flashinfer_ssu.sh: building $lib (about a minute on 2 cores)"
start=$(date +%s)
"${cmd[@]}"
mv -f "$lib.tmp" "$lib"
seconds=$(($(date +%s) - start))
nm -D --defined-only "$lib" | grep -q ' T kgate_export_table$' || die "$lib does not export kgate_export_table"

python3 - "$out/build.json" "$lib" "$seconds" "$wheel_sha" "$wheel_origin" "$src" "$fi_version" "$fi_commit" \
  "$cccl_version" "$("$nvcc" --version | tail -n 2 | tr '\n' ' ')" "$(sha_of "$lib")" \
  "$(sha_of "$root/peers/$PEER/adapter.cu")" "$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)" \
  "$(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo true || echo false)" "${cmd[@]}" <<'PY'
import json, sys, datetime
(path, lib, seconds, wheel_sha, wheel_origin, src, version, commit, cccl, nvcc_version, lib_sha,
 adapter_sha, kgate_commit, dirty, *cmd) = sys.argv[1:]
cmd[-1] = lib  # built to .tmp, then renamed
manifest = {
    "peer": "flashinfer_ssu",
    "package": "flashinfer-python",
    "pinned_version": "0.7.2.post1",
    "version": version or None,
    "flashinfer_git_commit": commit or None,
    "wheel_sha256": wheel_sha or None,
    "wheel": wheel_origin or None,
    "src": src or None,
    "cccl_version": int(cccl),
    "nvcc": cmd[0],
    "nvcc_version": nvcc_version.strip(),
    "command": cmd,
    "command_line": " ".join(cmd),
    "build_seconds": int(seconds),
    "library": lib,
    "library_sha256": lib_sha,
    "adapter_sha256": adapter_sha,
    "kgate_commit": kgate_commit,
    "kgate_tree_dirty": dirty == "true",
    "built_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
}
with open(path, "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")
PY
# No machine path in the manifest: the build's folders by placeholders.
python3 "$root/scripts/peers/portable_manifest.py" "$out/build.json" "$out=\$OUT" "$root=\$KGATE" \
  "$cuda_home=\$CUDA_HOME" "$src=\$SRC" "$( [ -n "$wheel" ] && dirname "$wheel")=\$WHEEL_DIR"
echo "flashinfer_ssu.sh: $lib (${seconds} s), manifest $out/build.json"
# A check without a GPU (dlopen needs libcuda.so.1; the stub answers it, for listing only):
#   d=$(mktemp -d); ln -s "$stubs/libcuda.so" "$d/libcuda.so.1"
#   LD_LIBRARY_PATH=$d build/kgate list --export "$lib"
