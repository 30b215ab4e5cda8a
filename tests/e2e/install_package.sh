#!/usr/bin/env bash
# cmake --install and find_package(kgate), as the README's "Bring any kernel" section runs them:
# the installed tree holds kgate, the export ABI headers, the data and the CMake package; the
# installed binary reads its own data (share/kgate), not the source tree it was built from; the
# README's commands after the install (copy the example, build it with cc, run it against its
# oracle arm, audit) work as printed; and an out-of-tree project builds the same export through
# find_package(kgate) + kgate_add_export and runs it.
source "$(dirname "$0")/lib.sh"
BUILD="$(dirname "$KGATE")"
[ -f "$BUILD/cmake_install.cmake" ] || { echo "skip: $BUILD is not a CMake build folder"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 77; }
cd "$WORK"
P="$WORK/prefix"
cmake --install "$BUILD" --prefix "$P" >install.txt 2>&1; check "cmake --install --prefix" 0 $?
for f in bin/kgate include/kgate/kgate_export.h include/kgate/tensor/abi.h include/kgate/ssu/abi.h \
  share/kgate/cases/suites.json share/kgate/cases/policies/ssu_vs_flashinfer.json \
  share/kgate/examples/tensor/rmsnorm.c share/kgate/examples/tensor/rmsnorm.json \
  lib/cmake/kgate/kgateConfig.cmake lib/cmake/kgate/kgateConfigVersion.cmake; do
  [ -f "$P/$f" ]; check "installed: $f" 0 $?
done
# The installed binary's data is share/kgate: a table that exists only there is found by name.
cp "$P/share/kgate/cases/axpy.json" "$P/share/kgate/cases/only_installed.json"
env -u KGATE_DATA_DIR "$P/bin/kgate" list >list.txt 2>&1; check "installed kgate list" 0 $?
expect_grep "it lists the installed tables" "only_installed" list.txt
env -u KGATE_DATA_DIR "$P/bin/kgate" --data-dir "$SRC" list >list_src.txt 2>&1; check "--data-dir" 0 $?
! grep -q only_installed list_src.txt; check "--data-dir reads that folder's tables instead" 0 $?
"$P/bin/kgate" --data-dir "$WORK" list >/dev/null 2>dd.err; check "--data-dir without cases/ is refused" 2 $?
expect_grep "the refusal says why" "no cases/ folder" dd.err
# The README's commands, after the install (its prefix there is ~/.local/kgate).
export PATH="$P/bin:$PATH"
readme_cmds=(
  "cp PREFIX/share/kgate/examples/tensor/rmsnorm.c PREFIX/share/kgate/examples/tensor/rmsnorm.json ."
  "cc -O2 -shared -fPIC -I PREFIX/include/kgate rmsnorm.c -o librmsnorm.so -lm"
  "kgate run --backend cpu --cases rmsnorm.json --candidate export:librmsnorm.so:rmsnorm.mine --baseline export:librmsnorm.so:rmsnorm.ref --policy correct --out rmsnorm_receipt.json"
  "kgate audit rmsnorm_receipt.json"
)
for c in "${readme_cmds[@]}"; do
  grep -qF -- "${c//PREFIX/\~/.local/kgate}" "$SRC/README.md"; check "README holds: ${c:0:60}..." 0 $?
  env -u KGATE_DATA_DIR bash -c "${c//PREFIX/$P}" >cmd.out 2>&1; rc=$?
  [ "$rc" = 0 ] || cat cmd.out
  check "runs: ${c:0:60}..." 0 $rc
done
mkdir proj
cat >proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(my_norm C)
find_package(kgate 0.1 REQUIRED)
kgate_add_export(my_norm ../rmsnorm.c)
target_link_libraries(my_norm PRIVATE m)
CM
cmake -S proj -B proj/build -DCMAKE_PREFIX_PATH="$P" >cm.txt 2>&1 && cmake --build proj/build >>cm.txt 2>&1
rc=$?
[ "$rc" = 0 ] || cat cm.txt
check "find_package(kgate) + kgate_add_export build the example out of tree" 0 $rc
sed 's/librmsnorm.so/libmy_norm.so/' rmsnorm.json >my_norm.json
env -u KGATE_DATA_DIR kgate run --backend cpu --quiet --groups 2 --m 2 --cases my_norm.json \
  --candidate export:proj/build/libmy_norm.so:rmsnorm.mine --baseline export:proj/build/libmy_norm.so:rmsnorm.ref \
  --policy correct --out my_norm_receipt.json >/dev/null 2>run.err
rc=$?
[ "$rc" = 0 ] || cat run.err
check "the package-built export runs and passes" 0 $rc
kgate audit my_norm_receipt.json >/dev/null; check "its receipt audits" 0 $?
finish
