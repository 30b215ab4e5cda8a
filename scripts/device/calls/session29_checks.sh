#!/usr/bin/env bash
# Session 29, last call: the sanitizers on the rows that run the BF16 kernel's item ring (issue14-item-ring, landed as
# ring-bf16 in 1741fa0), which the receipts' call checked only through memcheck on mla-87 and mla-89 (its racecheck
# rows, mla-34 and mla-43, are FP8 rows without the ring): racecheck on mla-35 (routed, planned), mla-87 (routed
# queue) and mla-86 (BF16 queue, 257 tokens: ~2 items a CTA); memcheck on mla-20, -35, -44 (routed, planned) and
# mla-86, -88, -90 (BF16 queue). On an H200 it takes main's three receipts first (sparse_mla_receipts_session21.sh);
# with ONLY_H200=1 it stops after nvidia-smi on any other GPU (the call to try for H200 receipts: calls naming
# nvidia-h200 ran on H100s all of session 29; the receipts' call writes $OUT/m29e.tar).
# Carried: .dev/fm (the FlashMLA export) and .dev/s29e.tar.xz (main's build as x).
tar -C .dev -xJf .dev/s29e.tar.xz 2>/dev/null || python3 -c "import tarfile; tarfile.open('.dev/s29e.tar.xz').extractall('.dev')"
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/x; O=/tmp/s29e; rm -rf "$O"; mkdir -p "$O"; export KGATE_SOURCE_DIR=$ROOT
trap 'tar -C "$O" -czf "$OUT/s29e.tgz" --exclude="*.json" .' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv | tee "$O/gpu.txt"
if ! grep -q H200 "$O/gpu.txt"; then
  [ "${ONLY_H200:-0}" = 1 ] && { echo "not an H200: nothing run"; exit 0; }
else
  SANITIZE=0 BUILD=x TAG=m29e NEAR="mla-18-*,mla-33-*,mla-42-*,mla-43-*,mla-46-*,mla-87-*,mla-89-*" \
    bash scripts/device/calls/sparse_mla_receipts_session21.sh
fi
source scripts/device/sparse_mla_checks.sh
timeout 300 bash scripts/device/racecheck_rows.sh "$B" "$O/racecheck" cases/sparse_mla_94.json sparse_mla.fast sparse_mla.floor 100 \
  'mla-35-*' 'mla-87-*' 'mla-86-*'
mla_memcheck "mla-20-*,mla-35-*,mla-44-*,mla-86-*,mla-88-*,mla-90-*"
echo "call done in $SECONDS s"
