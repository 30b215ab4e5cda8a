#!/usr/bin/env bash
# Export arms on the command line (export:PATH:NAME): a library that does not load, has the
# wrong ABI version or family, or lacks the entry symbol is exit 2 with one line naming the
# file, before any work; kgate list --export lists a good library's arms with their kernels.
source "$(dirname "$0")/lib.sh"
EXPORTS="${KGATE_TEST_EXPORTS_DIR:-}"
[ -f "$EXPORTS/export_good_ssu.so" ] || { echo "skip: the test export libraries are not built"; exit 77; }
cd "$WORK"
GOOD="$EXPORTS/export_good_ssu.so"
run_with() {  # run_with ARM [BACKEND]: an ssu run (cuda backend by default) with ARM as the candidate
  # The library is checked before the device is opened: these refusals need no GPU.
  "$KGATE" run --backend "${2:-cuda}" --quiet --cases "$SRC/cases/cpu/ssu.json" --candidate "$1" \
    --baseline ssu.cpu_scalar --out out.json 2>err.txt >/dev/null
}
one_line_naming() {  # one_line_naming "what" FILE PATTERN
  expect_grep "$1: names the file" "$2" err.txt
  expect_grep "$1: says what is wrong" "$3" err.txt
  [ "$(wc -l <err.txt)" -eq 1 ] && echo "ok: $1: one line" || { echo "FAIL: $1: not one line:"; cat err.txt; fails=$((fails + 1)); }
}
run_with "export:$WORK/nothing.so:fails"; check "missing library" 2 $?
one_line_naming "missing library" "$WORK/nothing.so" "no such file"
run_with "export:$EXPORTS/export_wrong_abi.so:fails"; check "wrong ABI version" 2 $?
one_line_naming "wrong ABI version" "export_wrong_abi.so" "ABI version 2, expected 1"
run_with "export:$EXPORTS/export_wrong_family.so:fails"; check "wrong family" 2 $?
one_line_naming "wrong family" "export_wrong_family.so" "family 'sparse_mla', expected 'ssu'"
run_with "export:$EXPORTS/export_no_symbol.so:fails"; check "missing symbol" 2 $?
one_line_naming "missing symbol" "export_no_symbol.so" "missing symbol kgate_export_table"
echo "not an ELF file" >garbage.so
run_with "export:garbage.so:fails"; check "not loadable" 2 $?
one_line_naming "not loadable" "'garbage.so'" "cannot load: "
run_with "export:$GOOD:fail"; check "no such arm" 2 $?
one_line_naming "no such arm" "$GOOD" "no arm 'fail' in it (arms: fails, picky); did you mean 'fails'?"
[ ! -e out.json ] && [ ! -e out.json.journal ] && echo "ok: nothing written" || { echo "FAIL: a refused run wrote"; fails=$((fails + 1)); }
# Export arms are cuda arms: the CPU backend refuses them by name before opening the library,
# so none of its code runs (this library's constructor writes a marker file when it is opened).
MARKER="$EXPORTS/export_ctor_marker.so"
export KGATE_TEST_CTOR_MARKER="$WORK/ctor.marker"
run_with "export:$MARKER:marker" cpu; check "an export on the CPU backend" 2 $?
one_line_naming "an export on the CPU backend" "export_ctor_marker.so" "runs on the cuda backend, but this run uses the cpu backend (the library was not opened"
[ ! -e ctor.marker ] && echo "ok: the refused library was not opened" || { echo "FAIL: the library's constructor ran"; fails=$((fails + 1)); }
"$KGATE" run --backend cpu --quiet --cases "$SRC/cases/cpu/ssu.json" --candidate ssu.cpu_eigen \
  --baseline "ssu.cpu_scalar,export:$MARKER:marker" --out out.json 2>err.txt >/dev/null
check "an export baseline on the CPU backend" 2 $?
expect_grep "the baseline is named" "^kgate: error: --baseline 'export:" err.txt
[ ! -e ctor.marker ] && echo "ok: the refused baseline's library was not opened" || { echo "FAIL: the baseline library's constructor ran"; fails=$((fails + 1)); }
"$KGATE" list --export "$MARKER" >/dev/null; check "list --export opens the marker library" 0 $?
[ -e ctor.marker ] && echo "ok: opening the library leaves the marker" || { echo "FAIL: no marker: the test cannot see a load"; fails=$((fails + 1)); }
unset KGATE_TEST_CTOR_MARKER

"$KGATE" list --export "$GOOD" >list.txt; check "list --export" 0 $?
expect_grep "list: the arm, by its portable name" "export:export_good_ssu.so:fails .*\[kernels: test_ssu_fails_kernel\]" list.txt
expect_grep "list: both kernels of the second arm" "export:export_good_ssu.so:picky .*\[kernels: test_ssu_picky_kernel,test_ssu_picky_epilogue\]" list.txt
! grep -q "^families:\|^case tables" list.txt; check "list --export lists the library's arms only" 0 $?
"$KGATE" list --export "export:$GOOD:picky" >one.txt; check "list --export export:PATH:NAME" 0 $?
[ "$(wc -l <one.txt)" -eq 1 ] && grep -q "export:export_good_ssu.so:picky " one.txt
check "list --export export:PATH:NAME lists that arm alone" 0 $?
"$KGATE" list --export "export:$GOOD" | cmp -s - list.txt; check "list --export export:PATH is PATH" 0 $?
"$KGATE" list --export "export:$GOOD:nosuch" >/dev/null 2>err.txt; check "list --export of an arm the library lacks" 2 $?
"$KGATE" list --json --export "$GOOD" >list.json; check "list --export --json" 0 $?
sha=$(sha256sum "$GOOD" | cut -d' ' -f1)
expect_grep "list --json: the library's sha256" "\"sha256\": \"$sha\"" list.json
"$KGATE" list --export "$EXPORTS/export_wrong_abi.so" >/dev/null 2>err.txt; check "list --export of a wrong ABI" 2 $?
expect_grep "list: names the file" "export_wrong_abi.so" err.txt
finish
