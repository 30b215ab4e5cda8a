#pragma once
// The calib arms in one table (harness/core/arm.hpp), which family.cpp registers: GPU only (the
// family proves the GPU timer; without CUDA it registers nothing). Prose only: no arm's unit
// includes this file.
#include "harness/core/arm.hpp"
#include "kernels/calib/config.hpp"
#ifdef KGATE_HAVE_CUDA
#include "kernels/calib/launch.hpp"

namespace kgate::calib {

// calib.spin and calib.spin_twin: one implementation registered twice (the A/A pair).
inline const ArmEntry<Arm> kGpuArms[] = {
    {"calib.spin", "baseline", "spin / overlapping spins / D2D copy, per the row's kind", &kTimedArm},
    {"calib.spin_twin", "baseline", "spin / overlapping spins / D2D copy, per the row's kind", &kTimedArm},
    {"calib.spin_longer", "baseline",
     "the spin of calib.spin for 2 % more SM cycles (spin rows of >= 5 us): a known real difference", &kSpinLongerArm,
     &spin_longer_supports},  // config.hpp
    {"calib.fault", "negative_control",
     "traps on the device (__trap) on every row: proves a failing row is recorded and the campaign goes on",
     &kFaultArm},
};

}  // namespace kgate::calib
#endif
