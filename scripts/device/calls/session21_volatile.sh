#!/usr/bin/env bash
# Session 21, call 3: branch issue14-piece with volatile row loads and stage stores (.dev/pv), so that each 16-byte
# piece's reload issues right after the piece's store (in pc, .dev/pc, ptxas gathered the reloads late in the
# step). The 28 FlashMLA rows, two runs each, pc pv pc pv; pv's GPU tests and hardening rows (correct).
CALL=s21c3; source scripts/device/plan_ab.sh
ab_pair pc .dev/pc pv .dev/pv
B=$ROOT/.dev/pv; ab_gpu_tests
ab_hard hard_pv
ab_finish
