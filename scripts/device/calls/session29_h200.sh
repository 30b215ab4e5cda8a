#!/usr/bin/env bash
# Session 29: main's sparse_mla receipts on an H200 if the call lands on one (calls naming nvidia-h200 have run on
# H100s all session); on any other GPU it stops after nvidia-smi. Carried: .dev/fm and .dev/s29e.tar.xz (main's build
# as x, 1741fa0's kernels). The receipts' call writes $OUT/m29h.tar (sparse_mla_receipts_session21.sh, no sanitizers:
# session29_checks.sh ran them on this build).
nvidia-smi --query-gpu=name --format=csv,noheader | tee /tmp/gpu_name.txt
grep -q H200 /tmp/gpu_name.txt || { echo "not an H200: nothing run"; exit 0; }
tar -C .dev -xJf .dev/s29e.tar.xz
SANITIZE=0 BUILD=x TAG=m29h NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-87-*,mla-89-*" \
  bash scripts/device/calls/sparse_mla_receipts_session21.sh
