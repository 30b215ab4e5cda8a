#!/usr/bin/env bash
# session 6 call 7: racecheck of build a8fdde5: sparse_mla (4 hardening rows, fast/baseline/floor) and ssu (6 rows)
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/b; O=/tmp/o7; mkdir -p $O/m $O/s; export KGATE_SOURCE_DIR=$ROOT
rc() { local p=$1 c=$2 r=$3 cand=$4 base=$5 t=$6
  timeout $t compute-sanitizer --tool racecheck --error-exitcode 9 $B/kgate run --quiet --no-peaks --cases $c --rows "$r" \
    --candidate $cand --baseline $base --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --out $O/$p/san.json > $O/${p}_racecheck.log 2>&1
  echo "$p racecheck: exit $? ; $(grep -E 'RACECHECK SUMMARY|falling back|pass policy' $O/${p}_racecheck.log | tr '\n' ' ')"; }
rc m cases/sparse_mla_hardening.json 'mla-hard-fp8-h64-one-token-offset,mla-hard-bf16-h64-empty-tokens,mla-hard-bf16-h16-swa128-offset-concat-pad,mla-hard-fp8-h128-all-invalid' sparse_mla.fast sparse_mla.baseline,sparse_mla.floor 140
rc s cases/ssu.json 'ssu-nemotron-h-bf16-b1,ssu-nemotron-h-bf16-b8-pad,ssu-mamba2-2.7b-bf16-b16-fused-unaligned,ssu-nemotron-h-bf16-b32-z,ssu-nemotron-h-bf16-b128,ssu-mamba2-2.7b-fp32-b16-z' ssu.fast ssu.floor,ssu.floor_copy 140
rm -f $O/*/san*.json; tar -C $O -cf $OUT/all.tar .
