#!/usr/bin/env bash
# Session 18, calls 1-5 (branch issue13-pfown, its knob KGATE_SSU_SMALL_VARIANT in launch.cu): the
# BF16 rows of the NL = 2 range (batch <= 4, one wave), in call 5 with four of the NL = 4 range,
# under variants of ssu.fast, each against ssu.floor, three interleaved rounds
# (scripts/device/ssu_variant_ab.sh). Carried: .dev/p (kgate of the branch at the call's commit).
# Usage: session18_ab.sh CALL. Each call ran as its own copy of this loop (one file per call,
# merged here; the variants and rows below are the ones each ran). Tables:
# receipts/sm_90/logs/ssu_session18/.
#   1 (7295c14; its table made here, the call's table script then read the sidecars): pf, pfe, pfa, pfv: the side lines prefetched to L2 at entry, with the small mode,
#     the early mode, all loads first, vector B/C
#   2 (73ebf20, the side-warp kernel): ws (4 state warps, NL 2, cp.async), pfa
#   3 (fb57c23): ws, ws8, ws2 (8 / 2 state warps), wsf (float-reciprocal group index, vector B/C)
#   4 (f3e6a3c): ws, wsr (state in registers), ws4n, wsr4n (NL 4), wsr2 (2 warps, registers)
#   5 (66ed9b0): wsr4n, wsr4nm (also on the NL = 4 range), wsr8n (2 warps NL 8), wsr4n2 (2 warps NL 4)
set -uo pipefail
SMALL='ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b2,ssu-nemotron-h-tp2-bf16-b1,ssu-nemotron-h-tp2-bf16-b4,ssu-mamba2-2.7b-bf16-b1,ssu-granite-like-bf16-b1'
ROWS=$SMALL
case ${1:?call number} in
  1) V='base pf pfe pfa pfv' ;;
  2) V='base ws pfa' ;;
  3) V='base ws ws8 ws2 wsf' ;;
  4) V='base ws wsr ws4n wsr4n wsr2' ;;
  5) V='base wsr4n wsr4nm wsr8n wsr4n2'
     ROWS=$SMALL,ssu-nemotron-h-bf16-b4,ssu-mamba2-2.7b-bf16-b8,ssu-nemotron-h-bf16-b8,ssu-granite-like-bf16-b16 ;;
  *) echo "session18_ab.sh: call 1-5" >&2; exit 2 ;;
esac
O=/tmp/ab$1; rm -rf $O
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > /dev/null 2>&1
bash scripts/device/ssu_variant_ab.sh "$PWD/.dev/p" $O KGATE_SSU_SMALL_VARIANT "$V" "$ROWS"
tar -C $O -cf "$OUT/ab$1.tar" .
