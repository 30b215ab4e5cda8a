#!/usr/bin/env bash
# Session 19, call 9: main's GPU tests (the refactored repeat loop; .dev/m, the build of 3c43d0a's tests)
# and an A/B on the 28 FlashMLA rows: m (.dev/m/kgate, the receipts' build 538173e) against p (.dev/n,
# branch issue14-fuse: the queue's first block's index entries prefetched to L2 at entry), m p m p.
CALL=s19c9; source scripts/device/plan_ab.sh
B=$ROOT/.dev/m; ab_gpu_tests
for i in 1 2; do B=$ROOT/.dev/m; ab_run m_$i KGATE_X=1; B=$ROOT/.dev/n; ab_run p_$i KGATE_X=1; done
ab_finish
