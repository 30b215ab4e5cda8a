# Shared by the GPU end-to-end tests: skip (77) without a GPU.
source "$(dirname "$0")/../e2e/lib.sh"
if ! "$KGATE" env --backend cuda >/dev/null 2>&1; then echo "no GPU: skipping"; exit 77; fi
