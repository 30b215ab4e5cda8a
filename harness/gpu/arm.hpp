#pragma once
// The GPU arm every family declares (harness/core/arm.hpp has the CPU one and the table): its
// launch over the family's plain C args (kernels/<family>/abi.h, the struct exports take too), the
// launch configuration its heuristics choose for those args, and the kernel names its launch
// issues (the parity and fallback gates match them as substrings of the names CUPTI records).
// Compiled by nvcc (launch.cu defines the arms) and g++ (the registration and the contexts).
#include <cuda_runtime.h>

#include <span>

namespace kgate {

// A family's arms that need nothing beyond the args: Traits = NoTraits, Extra = void.
struct NoTraits {};

namespace detail {
template <class Args, class Extra>
struct GpuLaunch {
  using type = void (*)(const Args& a, const Extra& extra, cudaStream_t s);
};
template <class Args>
struct GpuLaunch<Args, void> {
  using type = void (*)(const Args& a, cudaStream_t s);
};
}  // namespace detail

// Args: the family's C args. Config: what config() returns (json, or a descriptor with
// to_json()). Extra: what the row context lends a launch beyond the args (ag_gemm's cuBLAS
// handle and streams, ssu's second pool), void when nothing. Traits: what the row context must
// know of an arm to check it (which buffer it writes, what it reads).
template <class Args, class Config, class Extra = void, class Traits = NoTraits>
struct GpuArm {
  using ArgsType = Args;
  using ConfigType = Config;
  using ExtraType = Extra;
  typename detail::GpuLaunch<Args, Extra>::type launch = nullptr;
  // The configuration the launch will choose for `a` (it may query the device); null: the arm
  // has no choice to make and the row context records the row's own.
  Config (*config)(const Args& a) = nullptr;
  std::span<const char* const> kernels{};
  Traits traits{};
};

}  // namespace kgate
