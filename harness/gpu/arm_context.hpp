#pragma once
// The base of every family's GPU row context: it holds the row's C args (kernels/<family>/abi.h),
// reads a bundled arm back as the family's GpuArm (harness/gpu/arm.hpp) with arm_of, and runs an
// export arm through its library with the same args (harness/export/loader.hpp): its refusal is
// asked before any call, its launch replaces the bundled one, its config is its own (none
// recorded). A family's context adds its inputs, its check and how it calls its arms (call()).
#include <string>

#include "harness/core/arm.hpp"
#include "harness/export/loader.hpp"
#include "harness/gpu/arm.hpp"
#include "harness/gpu/backend.hpp"
#include "harness/gpu/check.hpp"

namespace kgate::gpu {

// A launch config as the row records it: json as is, a descriptor by its to_json().
inline json config_json(const json& j) { return j; }
template <class C>
json config_json(const C& c) {
  return c.to_json();
}

template <class Arm>
class ArmContext : public GpuRowContext {
 public:
  using Args = typename Arm::ArgsType;
  explicit ArmContext(GpuBackend& be) : GpuRowContext(be) {}

  std::string arm_refusal(const Implementation& impl) override { return export_refusal(impl, &args_); }
  json config(const Implementation& impl) const override {
    if (impl.exported) return nullptr;
    const Arm& a = arm(impl);
    return a.config ? config_json(a.config(args_)) : json(nullptr);
  }

 protected:
  // A bundled arm's launch on `s`, with what the family's context lends it (Arm's Extra).
  virtual void call(const Arm& a, cudaStream_t s) = 0;
  void launch_call(const Implementation& impl, cudaStream_t s) override {
    if (!impl.exported) return call(arm(impl), s);
    export_launch(impl, &args_, s);
    KGATE_CUDA_LAUNCHED();
  }
  static const Arm& arm(const Implementation& impl) { return arm_of<Arm>(impl); }
  std::string call_args() const override { return {reinterpret_cast<const char*>(&args_), sizeof args_}; }

  Args args_{};
};

}  // namespace kgate::gpu
