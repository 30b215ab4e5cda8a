#pragma once
// Every CUDA, CUPTI, cuBLAS and NCCL call goes through one of these: a failure throws a
// DeviceError naming the subsystem, file:line, the call, and the error's name and text.
// The _NOEXCEPT forms are for destructors: they report on stderr and carry on.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "harness/core/errors.hpp"

namespace kgate::gpu {

[[noreturn]] void throw_device_error(const char* subsystem, const char* file, int line, const char* call,
                                     const std::string& name, const std::string& text);
std::string cupti_error_name(int code);

}  // namespace kgate::gpu

#define KGATE_CUDA(call)                                                                          \
  do {                                                                                            \
    cudaError_t kgate_e_ = (call);                                                                \
    if (kgate_e_ != cudaSuccess)                                                                  \
      ::kgate::gpu::throw_device_error("CUDA", __FILE__, __LINE__, #call, cudaGetErrorName(kgate_e_), \
                                       cudaGetErrorString(kgate_e_));                             \
  } while (0)

#define KGATE_CUDA_NOEXCEPT(call)                                                                 \
  do {                                                                                            \
    cudaError_t kgate_e_ = (call);                                                                \
    if (kgate_e_ != cudaSuccess)                                                                  \
      std::fprintf(stderr, "kgate: %s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
                   cudaGetErrorName(kgate_e_));                                                   \
  } while (0)

// After a kernel launch: launch-configuration errors surface here, not at the next sync.
#define KGATE_CUDA_LAUNCHED() KGATE_CUDA(cudaGetLastError())
