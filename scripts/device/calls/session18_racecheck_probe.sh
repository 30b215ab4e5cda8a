#!/usr/bin/env bash
# Session 18: the named-barrier racecheck probe (scripts/device/diag/named_barrier_racecheck.cu,
# built here into .dev/probe) in every mode, plain and under racecheck: does an mbarrier (mode 6)
# in place of warpgroup 0's own 128-thread barrier keep racecheck quiet on the race-free hand-off?
# As it ran, the loop went on to a mode 7 that deadlocked (removed from the probe; the call ended at
# its 300 s limit after mode 6). One log back.
set -uo pipefail
P=$PWD/.dev/probe/named_barrier_racecheck
for m in 0 1 2 3 4 5 6; do
  $P $m
  timeout 60 compute-sanitizer --tool racecheck $P $m 2>&1 | grep -E "RACECHECK SUMMARY|ERROR SUMMARY" | sed "s/^/  racecheck mode $m: /"
done 2>&1 | tee $OUT/probe.log
