#!/usr/bin/env bash
# Session 18, call 4 (branch issue13-pfown): the BF16 NL = 2 rows (batch <= 4, within one wave)
# under four variants of the small modes, KGATE_SSU_SMALL_VARIANT (unset; ws: the side warp kernel, 4 state warps, NL 2; wsr: its state in registers; ws4n, wsr4n: NL 4; wsr2: 2 state warps, registers;
# launch.cu of the branch), each against ssu.floor, runs interleaved, three rounds; then the
# ssu GPU tests. Carried: .dev/p (kgate, kgate_gpu_tests of the branch). Everything leaves as one tar.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/p; O=/tmp/ws4; rm -rf $O; mkdir -p $O/ab
export KGATE_SOURCE_DIR=$ROOT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
ROWS='ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b2,ssu-nemotron-h-tp2-bf16-b1,ssu-nemotron-h-tp2-bf16-b4,ssu-mamba2-2.7b-bf16-b1,ssu-granite-like-bf16-b1'
for r in 1 2 3; do for v in base ws wsr ws4n wsr4n wsr2; do
  if [ $v = base ]; then unset KGATE_SSU_SMALL_VARIANT; else export KGATE_SSU_SMALL_VARIANT=$v; fi
  timeout 90 $B/kgate run --quiet --cases cases/ssu.json --rows "$ROWS" --candidate ssu.fast --baseline ssu.floor \
    --policy correct --out $O/ab/${v}_$r.json > $O/ab/${v}_$r.log 2>&1
  echo "$v $r rc=$? $(grep -E 'pass policy' $O/ab/${v}_$r.log | cut -c1-120)"
done; done
unset KGATE_SSU_SMALL_VARIANT
python3 scripts/ssu_variant_table.py $O/ab | tee $O/table.txt
[ -x $B/kgate_gpu_tests ] && { timeout 150 $B/kgate_gpu_tests --gtest_filter='*Ssu*:*ssu*' > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"; }
tar -C $O -cf $OUT/ws4.tar .
