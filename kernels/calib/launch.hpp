#pragma once
// The calib launchers (launch.cu) and the family's arms over them.
#include <cuda_runtime.h>

#include "harness/core/jcs.hpp"
#include "harness/gpu/arm.hpp"
#include "kernels/calib/abi.h"

namespace kgate::calib {

// An arm has no launch config of its own: the row context records the row's (cycles, clock).
using Arm = kgate::GpuArm<calib_args, json>;

// spin: one spin; overlap: stream 1 spins T while the side stream spins (1 - f) T then T;
// copy: cudaMemcpyAsync device to device.
void launch_timed(const calib_args& a, cudaStream_t s);
// spin rows only: the same spin for 2 % more cycles (cycles + cycles / 50): a known real
// difference, for the interval to resolve.
void launch_spin_longer(const calib_args& a, cudaStream_t s);
// Traps on the device: the call fails with a CUDA error, whatever the row.
void launch_fault(const calib_args& a, cudaStream_t s);
// The SM clock in MHz (cycles per microsecond), from three 20 ms spins; the last one counts.
double measure_sm_clock_mhz(cudaStream_t s);

extern const Arm kTimedArm, kSpinLongerArm, kFaultArm;

}  // namespace kgate::calib
