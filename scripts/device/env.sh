# Sourced by the device scripts: $1 = folder with kgate (default build). Sets B, K, OUT, R.
B=$(cd "${1:-build}" && pwd)
K="$B/kgate"
OUT=${OUT:-out/device}
R=$OUT/r
mkdir -p "$R"
export KGATE_SOURCE_DIR=$PWD
