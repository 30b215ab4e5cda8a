#!/usr/bin/env bash
# Session 21, third receipts call: the build after the review's fixes (launch.cu: the route's BF16 tables per device,
# no route for empty tables, FP8 tables checked to be whole page blocks; the GPU repeat test's FP8 row back on the
# FP8 producer; .dev/z), with the first call's commands; racecheck on mla-42 and -18 only (the kernels are d821e3b's),
# three more runs of the rows nearest the line (the device time left).
BUILD=z TAG=m21c RACE_ROWS="mla-42-* mla-18-*" NEAR="mla-33-*,mla-42-*,mla-89-*" \
  exec bash scripts/device/calls/sparse_mla_receipts_session21.sh
