#!/usr/bin/env bash
# Session 20: three more runs, against FlashMLA, of the rows near 1 in the receipt of 8c5c9cd (.dev/r).
set -uo pipefail
ROOT=$PWD; B=$ROOT/.dev/r; O=/tmp/n20; rm -rf $O; mkdir -p $O; export KGATE_SOURCE_DIR=$ROOT
FM=export:$ROOT/.dev/fm/libkgate_flashmla_sparse.so:sparse_mla.flashmla
source scripts/device/sparse_mla_checks.sh
mla_near 'mla-10-*,mla-19-*,mla-20-*,mla-22-*,mla-23-*,mla-32-*,mla-34-*' | tee $O/near.log
