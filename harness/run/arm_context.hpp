#pragma once
// The base of every family's CPU row context: an arm is the family's CpuArm (harness/core/arm.hpp),
// read back with arm_of, and one timed call is one call of it on the context's own buffers, on the
// host clock. The GPU counterpart: harness/gpu/arm_context.hpp.
#include "harness/core/arm.hpp"
#include "harness/run/backend.hpp"
#include "harness/run/cpu_backend.hpp"

namespace kgate {

template <class Arm>
class CpuArmContext : public RowContext {
 public:
  Sample time_once(const Implementation& impl) override {
    const Arm& a = arm(impl);
    Sample s;
    s.us = host_time_us([&] { call(a); });
    return s;
  }
  double warm_call_us(const Implementation& impl) override { return time_once(impl).us; }

 protected:
  // One call of `a` on the buffers the timed calls share (check() uses fresh, poisoned ones).
  virtual void call(const Arm& a) = 0;
  static const Arm& arm(const Implementation& impl) { return arm_of<Arm>(impl); }
};

}  // namespace kgate
