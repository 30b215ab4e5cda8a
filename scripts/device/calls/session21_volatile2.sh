#!/usr/bin/env bash
# Session 21, call 4: call 3's volatile reloads with the L2::256B prefetch hint the nc loads had (.dev/pv2; call 3's
# pv lost 1-2 us on the DRAM-bound decode rows and gained 2-7 on the L2-resident prefill rows) against pc. The 28
# FlashMLA rows, two runs each, pc pv2 pc pv2; pv2's GPU tests and hardening rows (correct).
CALL=s21c4; source scripts/device/plan_ab.sh
ab_pair pc .dev/pc pv2 .dev/pv2
B=$ROOT/.dev/pv2; ab_gpu_tests
ab_hard hard_pv2
ab_finish
