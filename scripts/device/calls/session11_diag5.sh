#!/usr/bin/env bash
# Session 11, call 5 (branch issue14-ws): where the warp-specialized FP8 step goes. Nsight Compute
# times one launch (the correctness launch, caches flushed, clocks left alone) of
# sparse_mla_fast_ws_kernel with the producer's work removed step by step
# (KGATE_SPARSE_MLA_WS_DIAG: 0 as shipped, 1 no row loads (zeros stored), 2 no row loads or stores,
# 3 = 2 without the index loads; outputs are wrong from 1 on, so only ncu's time is read), then the
# stall and pipe sections of mode 0 on mla-93. Build carried as .dev/d.
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/d; O=/tmp/s11d5; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
run1() {  # ROW MODE [ncu args...]
  local row=$1 mode=$2; shift 2
  KGATE_SPARSE_MLA_WS=2 KGATE_SPARSE_MLA_WS_DIAG=$mode timeout 60 ncu --clock-control none --kernel-name regex:sparse_mla_fast_ws_kernel \
    --launch-count 1 "$@" $B/kgate run --quiet --no-peaks --cases cases/sparse_mla_94.json --rows "$row" --candidate sparse_mla.fast \
    --baseline sparse_mla.floor --groups 1 --m 1 --warmup-calls 1 --warmup-us 0 --policy correct --force --out $O/x.json 2>&1
}
for row in 'mla-93-*' 'mla-44-*' 'mla-92-*'; do
  for mode in 0 1 2 3; do
    [ "$row" = 'mla-92-*' ] && [ $mode != 0 ] && continue
    t=$(run1 "$row" $mode --metrics gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active | grep -E "gpu__time_duration|gmma" | awk '{print $NF}' | tr '\n' ' ')
    echo "$row mode $mode: ns, tensor-pipe % = $t"
  done
done | tee $O/diag_times.txt
run1 'mla-93-*' 0 --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats > $O/ncu_mla93_mode0.txt
echo "sections: $(wc -l < $O/ncu_mla93_mode0.txt) lines"
tar -C $O -cf $OUT/all.tar .
