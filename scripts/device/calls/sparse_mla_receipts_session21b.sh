#!/usr/bin/env bash
# Session 21, second receipts call: the build of the FP8 pair rule (config.hpp: 40 or more pairs of 80 or more block
# steps run warp-specialized; .dev/y), with the first call's commands; racecheck and memcheck also on mla-18 (now one
# unsplit warp-specialized item per pair), three more runs of this build's rows near the line.
BUILD=y TAG=m21b RACE_MORE="mla-18-*" MEM_MORE=",mla-18-*,mla-33-*" \
  NEAR="mla-10-*,mla-18-*,mla-32-*,mla-33-*,mla-42-*,mla-44-*,mla-89-*" exec bash scripts/device/calls/sparse_mla_receipts_session21.sh
