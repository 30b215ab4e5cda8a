#!/usr/bin/env bash
# The default suite on the CPU backend: every receipt is written, audits, and passes its policy.
source "$(dirname "$0")/lib.sh"
cd "$WORK"
"$KGATE" run --backend cpu --quiet --out-dir out --groups 2 --m 2 >out.txt 2>&1; check "default suite" 0 $?
for f in out/ssu_cpu.json out/sparse_mla_cpu.json out/ag_gemm_cpu.json; do
  "$KGATE" audit "$f" >/dev/null; check "audit $f" 0 $?
  "$KGATE" gate "$f" --policy correct >/dev/null; check "gate $f" 0 $?
done
finish
