#!/usr/bin/env bash
# Session 17, call 3 (branch issue14-route): the epilogue's 16-byte stores (quad transpose) and the
# ws index loads issued without waiting for lens, build build-dev/e, against build-dev/c with
# KGATE_SPARSE_MLA_FAST_CLUSTER=0 (= issue14-route c668e45's kernels). GPU tests, the 58 h64/h128
# rows against FlashMLA (its 28 rows; the BF16 rows time the candidate only), order e o e o, the
# hardening rows' correctness, memcheck on mla-42 (ws, one split), mla-44 (ws, split), mla-06 (lockstep).
set -uo pipefail
ROOT=$PWD; O=/tmp/s17c3; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/build-peers/flashmla_sparse/libkgate_flashmla_sparse.so:sparse_mla.flashmla
trap 'tar -C $O -cf $OUT/emit.tar .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > $O/gpu.txt 2>&1
E=$ROOT/build-dev/e
timeout 40 $E/kgate run --cases cases/sparse_mla_94.json --rows 'mla-42-*,mla-44-*,mla-06-*,mla-36-*' --candidate sparse_mla.fast \
  --baseline sparse_mla.floor --policy correct --out $O/smoke.json > $O/smoke.log 2>&1
rc=$?; echo "smoke rc=$rc: $(grep -E 'pass policy' $O/smoke.log | cut -c1-200)"
[ $rc = 0 ] || { tail -20 $O/smoke.log; exit 1; }
( timeout 150 $E/kgate_gpu_tests ) > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/gpu_tests.log | tr '\n' ' ')"
grep -E "^\[  FAILED" $O/gpu_tests.log | head
for i in 1 2; do for v in e o; do
  if [ $v = e ]; then B=$E; X=; else B=$ROOT/build-dev/c; X=KGATE_SPARSE_MLA_FAST_CLUSTER=0; fi
  env $X timeout 100 $B/kgate run --quiet --cases cases/sparse_mla_94.json \
    --rows 'mla-*-h64-*,mla-*-h128-*' --candidate sparse_mla.fast --baseline "$FM" --policy correct \
    --out $O/ab_${v}_$i.json > $O/ab_${v}_$i.log 2>&1
  echo "$v $i rc=$?: $(grep -E 'pass policy' $O/ab_${v}_$i.log | cut -c1-120)"
  python3 scripts/sparse_mla_table.py $O/ab_${v}_$i.json > $O/ab_${v}_$i.txt 2>&1; tail -1 $O/ab_${v}_$i.txt
done; done
timeout 90 $E/kgate run --quiet --cases cases/sparse_mla_hardening.json --candidate sparse_mla.fast --baseline sparse_mla.baseline \
  --policy correct --out $O/hard.json > $O/hard.log 2>&1; echo "hardening rc=$?: $(grep -E 'pass policy' $O/hard.log | cut -c1-160)"
for r in mla-42 mla-44 mla-06; do
  compute-sanitizer --tool memcheck --error-exitcode 9 $E/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$r-*" \
    --candidate sparse_mla.fast --baseline sparse_mla.floor --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct \
    --out $O/san_$r.json > $O/memcheck_$r.log 2>&1
  echo "memcheck $r exit $?: $(grep -E 'ERROR SUMMARY' $O/memcheck_$r.log)"
done
