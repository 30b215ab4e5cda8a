#!/usr/bin/env bash
# Runs the GPU gtest binary; exits 77 (ctest: skipped) where no GPU is present.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipping"; exit 77
fi
exec "$1"
