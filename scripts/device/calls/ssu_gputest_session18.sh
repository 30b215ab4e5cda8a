#!/usr/bin/env bash
# Session 18, last call: the ssu GPU tests after the side-warp test gained rows (FP32 io at 2 x NL 2,
# the 96-tile bound, softplus off on 2 x 8 heads). Carried: .dev/f/kgate_gpu_tests. One log back. Ran first
# with --gtest_filter='*Ssu*' (the graph-capture test failed a replay: its memset raced the graph on
# the non-blocking stream, fixed in the test), then with no filter.
set -uo pipefail
export KGATE_SOURCE_DIR=$PWD
timeout 150 .dev/f/kgate_gpu_tests "$@" 2>&1 | tee $OUT/gpu_tests_ssu.log | grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED)|Failure|last:' 
