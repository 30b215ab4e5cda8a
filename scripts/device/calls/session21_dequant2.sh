#!/usr/bin/env bash
# Session 21, call 6: call 5's commands (session21_dequant.sh) on branch issue14-deq at 4a96901 (.dev/dq2: one
# dequantize launch for both tables, 16-byte pieces, a strided grid).
CALL=s21c6 DQ=dq2 exec bash scripts/device/calls/session21_dequant.sh
