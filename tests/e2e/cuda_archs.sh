#!/usr/bin/env bash
# The GPU build's architectures: machine code for sm_80, sm_90a and sm_100a in the binary (NVIDIA's
# cuobjdump --list-elf, installed by scripts/setup.sh), and `kgate list` showing each arm's: the
# portable arms every built architecture, the sm_90a-tuned ones sm_90a alone. Skips on a CPU-only build.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
"$KGATE" --version | grep -q "^CUDA: off" && { echo "skip: kgate built without CUDA"; exit 77; }
CUOBJDUMP=$(ls "$SRC"/build-pyverify/venv/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump 2>/dev/null | head -1)
[ -x "$CUOBJDUMP" ] || { echo "FAIL: no cuobjdump in $SRC/build-pyverify/venv: run scripts/setup.sh"; exit 1; }
"$CUOBJDUMP" --list-elf "$KGATE" > elf.txt 2>&1
check "cuobjdump lists the binary's device code" 0 $?
for arch in sm_80 sm_90a sm_100a; do expect_grep "machine code for $arch" "\.$arch\.cubin" elf.txt; done
echo "$(grep -c cubin elf.txt) cubins: $(grep -o 'sm_[0-9]*a\?' elf.txt | sort | uniq -c | tr '\n' ' ')"
"$KGATE" list > list.txt 2>&1
check "list" 0 $?
expect_grep "the tuned candidate is declared for sm_90a alone" "sparse_mla.fast  *cuda  *sm_90a  *candidate" list.txt
expect_grep "ssu.fast likewise" "ssu.fast  *cuda  *sm_90a  *candidate" list.txt
expect_grep "a baseline for every built architecture" "sparse_mla.baseline  *cuda  *sm_80,sm_90a,sm_100a  *baseline" list.txt
expect_grep "the timer's own arms too" "calib.spin  *cuda  *sm_80,sm_90a,sm_100a" list.txt
expect_grep "host arms say host" "ssu.cpu_eigen  *cpu  *host  *candidate" list.txt
finish
