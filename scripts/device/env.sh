# Sourced by the device scripts: $1 = folder with kgate (default build). Sets B, K, OUT, R.
# Receipts are written to R, a scratch folder outside OUT, and leave as one file per script,
# $OUT/receipts_<script>.tar, when the script exits: the device returns only a few files per
# call, so the receipts and their sidecars must not also lie under OUT one by one, and two
# scripts in one call must not overwrite each other's tar.
B=$(cd "${1:-build}" && pwd)
K="$B/kgate"
OUT=${OUT:-out/device}
mkdir -p "$OUT"
R=$(mktemp -d)
TAR="$OUT/receipts_$(basename "$0" .sh).tar"
trap 'tar -C "$R" -cf "$TAR" . && rm -rf "$R"' EXIT
export KGATE_SOURCE_DIR=$PWD
