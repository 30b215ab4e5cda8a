#!/usr/bin/env bash
# Session 10, after the receipts of efcb538: three more runs of the batch 2-8 rows nearest the
# 1.25 x ssu.floor line (the near-line selection of scripts/ssu_vs_flashinfer.py --near does not
# pick them), same arms and policy as the campaign. Carried: .dev/f, build-peers/flashinfer_ssu.
set -uo pipefail
ROOT=$PWD; O=/tmp/sps; rm -rf $O; mkdir -p $O
ROWS='ssu-mamba2-2.7b-bf16-b8,ssu-nemotron-h-bf16-b4,ssu-nemotron-h-tp2-bf16-b4,ssu-nemotron-h-bf16-b2' \
  BASELINE="export:$ROOT/build-peers/flashinfer_ssu/libkgate_flashinfer_ssu.so:ssu.flashinfer_stock,ssu.floor_copy,ssu.floor" \
  POLICY=cases/policies/ssu_vs_flashinfer.json TAG=small OUT=$O timeout 120 bash scripts/device/ssu_spread.sh $ROOT/.dev/f 3 > $O/small_spread.log 2>&1
echo "spread rc=$?"; cut -c1-200 $O/small_spread.log
tar -C $O -cf /tmp/sps.tar . && mv /tmp/sps.tar $OUT/sps.tar
