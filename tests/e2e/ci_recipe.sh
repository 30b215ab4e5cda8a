#!/usr/bin/env bash
# The CI recipe for a kernel repository (examples/ci/kgate_gate.sh, run by examples/ci/kgate.yml),
# on a git repository of its own: committed receipts that are fresh pass, also against the base
# branch's identical receipts; a changed case table or a rebuilt library (stale) fails; a receipt
# whose candidate became 50x slower than the base branch's fails as SLOWER.
source "$(dirname "$0")/lib.sh"
command -v cc >/dev/null && command -v git >/dev/null || { echo "skip: no C compiler or git"; exit 77; }
LIB="${KGATE_TEST_EXPORTS_DIR:-}/export_cheat_tensor.so"
[ -f "$LIB" ] || { echo "FAIL: $LIB is not built"; exit 1; }
GATE="$SRC/examples/ci/kgate_gate.sh"
cd "$WORK"
git init -q repo && cd repo && git config user.email ci@example.com && git config user.name ci
cp "$SRC/examples/tensor/rmsnorm.c" "$SRC/examples/tensor/rmsnorm.json" "$SRC/tests/exports/cheat_tensor.json" .
cp "$LIB" .
cc -O2 -shared -fPIC -I"$SRC/harness/export" -I"$SRC/kernels" rmsnorm.c -o librmsnorm.so -lm
run() {  # run OUT TABLE CANDIDATE BASELINE
  "$KGATE" run --backend cpu --quiet --groups 2 --m 4 --warmup-calls 1 --warmup-us 0 --cases "$2" \
    --candidate "$3" --baseline "$4" --policy correct --force --out "receipts/$1.json" >/dev/null 2>&1
}
run rmsnorm rmsnorm.json export:librmsnorm.so:rmsnorm.mine export:librmsnorm.so:rmsnorm.ref
check "a receipt of the example" 0 $?
run axpb cheat_tensor.json export:export_cheat_tensor.so:cheat.honest export:export_cheat_tensor.so:cheat.ref
check "a receipt of the honest arm" 0 $?
echo '*.so' >.gitignore
git add -A && git commit -qm base
bash "$GATE" --kgate "$KGATE" --base HEAD >../gate.txt 2>&1; check "fresh receipts, unchanged from the base branch: pass" 0 $?
expect_grep "compared with the base branch's" "Result: .*(of 5 matched pairs)" ../gate.txt
sed -i 's/LLaMA-style/LLaMA-sized/' rmsnorm.json
bash "$GATE" --kgate "$KGATE" >../stale.txt 2>&1; check "a changed case table: stale, fails" 1 $?
expect_grep "it says which" "STALE.*rmsnorm.json" ../stale.txt
git checkout -q rmsnorm.json
cc -O0 -shared -fPIC -I"$SRC/harness/export" -I"$SRC/kernels" rmsnorm.c -o librmsnorm.so -lm
bash "$GATE" --kgate "$KGATE" >../lib.txt 2>&1; check "a rebuilt library other than the receipt's: fails" 1 $?
cc -O2 -shared -fPIC -I"$SRC/harness/export" -I"$SRC/kernels" rmsnorm.c -o librmsnorm.so -lm
run axpb cheat_tensor.json export:export_cheat_tensor.so:cheat.slow export:export_cheat_tensor.so:cheat.ref
check "a receipt of the slow arm" 0 $?
git commit -qam slower
bash "$GATE" --kgate "$KGATE" --base HEAD~1 >../slow.txt 2>&1; check "50x slower than the base branch: fails" 1 $?
expect_grep "resolved SLOWER" "Result: [^*]*SLOWER" ../slow.txt
finish
