#!/usr/bin/env bash
# Every host function in the tree is under 80 lines (scripts/lint/function_size.sh). First the
# check itself: it must flag a long host function and leave a long kernel to its SASS.
source "$(dirname "$0")/lib.sh"
LINT="$SRC/scripts/lint/function_size.sh"
body() { for i in $(seq "$1"); do echo "  x += $i;"; done; }
{ echo "int long_host(int x) {"; body 80; echo "  return x;"; echo "}"; } >"$WORK/host.cpp"
{ echo "template <int N>"; echo "__global__ void __launch_bounds__(128, 1)"; echo "    long_kernel(int* p) {"
  echo "  int x = 0;"; body 90; echo "  *p = x;"; echo "}"
  echo "__device__ int short_device(int x) { return x; }"; } >"$WORK/kernel.cuh"
bash "$LINT" "$WORK" >"$WORK/lint.txt"; check "an 83-line host function is refused" 1 $?
expect_grep "the long host function is named" "host.cpp:1: long_host is 83 lines (limit 80)" "$WORK/lint.txt"
if grep -q long_kernel "$WORK/lint.txt"; then echo "FAIL: a kernel was counted"; fails=$((fails + 1)); fi
bash "$LINT" --limit 84 "$WORK" >/dev/null; check "under a higher limit it passes" 0 $?
cd "$SRC" && bash "$LINT" harness kernels references tests; check "every host function in the tree under 80 lines" 0 $?
finish
