#!/usr/bin/env bash
# Session 22, call 7: receipts of aeb2600 (d2156e9's kernels; model1.cuh now among the arms' digested sources, which
# changed family.cpp and so staled d2156e9's receipts). Build carried as .dev/r22b, the FlashMLA export as .dev/fm.
# The sparse_mla GPU tests; the three receipts (scripts/device/h200_sparse_mla.sh); three more runs of the rows near
# the line. No sanitizer runs: the kernels are d2156e9's, whose racecheck and memcheck are in logs/*_d2156e9.*.
# It ran as a copy of session 21's script without its sanitizer lines; the same commands, now through that script's
# SANITIZE=0 switch (session 23).
BUILD=r22b TAG=m22b SANITIZE=0 NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-89-*" \
  exec bash scripts/device/calls/sparse_mla_receipts_session21.sh
