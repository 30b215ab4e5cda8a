#!/usr/bin/env bash
# Session 22: receipts of d2156e9 (BF16 partials; the MODEL1 helper and the other cleanups of de42727), build carried
# as .dev/r22. Session 21's receipt call with racecheck on a queue row the FP8 producer fills (mla-42), a planned split
# row writing BF16 partials (mla-34) and a lockstep split row (mla-06); memcheck adds mla-34; three more runs of the
# rows near the line.
BUILD=r22 TAG=m22 RACE_ROWS="mla-42-* mla-34-* mla-06-*" MEM_MORE=",mla-34-*" \
  NEAR="mla-10-*,mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-89-*" exec bash scripts/device/calls/sparse_mla_receipts_session21.sh
