#pragma once
// Every CUDA, CUPTI, cuBLAS and NCCL call goes through one of these: a failure throws a
// DeviceError naming the subsystem, file:line, the call, and the error's name and text.
// The _NOEXCEPT forms are for destructors: they report on stderr and carry on.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <nccl.h>

#include <string>

#include "harness/core/errors.hpp"

namespace kgate::gpu {

// "<subsystem> error at <file>:<line>: <call> -> <name> (<text>)"
std::string device_error_message(const char* subsystem, const char* file, int line, const char* call,
                                 const std::string& name, const std::string& text);
[[noreturn]] void throw_device_error(const char* subsystem, const char* file, int line, const char* call,
                                     const std::string& name, const std::string& text);
// The same message on stderr, for destructors.
void report_device_error(const char* subsystem, const char* file, int line, const char* call, const std::string& name,
                         const std::string& text) noexcept;

// Name ("CUPTI_ERROR_NOT_INITIALIZED", "ncclInvalidUsage") and text of a status.
std::string cupti_result_name(CUptiResult r);
std::string cupti_result_text(CUptiResult r);
std::string nccl_result_name(ncclResult_t r);

}  // namespace kgate::gpu

// One definition per subsystem: the status type, its success value, its name and its text.
#define KGATE_DEVICE_CHECK_(subsystem, type, ok, name_of, text_of, on_error, call)                        \
  do {                                                                                                    \
    type kgate_s_ = (call);                                                                               \
    if (kgate_s_ != (ok))                                                                                 \
      ::kgate::gpu::on_error(subsystem, __FILE__, __LINE__, #call, name_of(kgate_s_), text_of(kgate_s_)); \
  } while (0)

#define KGATE_CUDA(call) \
  KGATE_DEVICE_CHECK_("CUDA", cudaError_t, cudaSuccess, cudaGetErrorName, cudaGetErrorString, throw_device_error, call)
#define KGATE_CUDA_NOEXCEPT(call) \
  KGATE_DEVICE_CHECK_("CUDA", cudaError_t, cudaSuccess, cudaGetErrorName, cudaGetErrorString, report_device_error, call)

#define KGATE_CUPTI(call)                                                                   \
  KGATE_DEVICE_CHECK_("CUPTI", CUptiResult, CUPTI_SUCCESS, ::kgate::gpu::cupti_result_name, \
                      ::kgate::gpu::cupti_result_text, throw_device_error, call)
#define KGATE_CUPTI_NOEXCEPT(call)                                                          \
  KGATE_DEVICE_CHECK_("CUPTI", CUptiResult, CUPTI_SUCCESS, ::kgate::gpu::cupti_result_name, \
                      ::kgate::gpu::cupti_result_text, report_device_error, call)

#define KGATE_CUBLAS(call)                                                                                         \
  KGATE_DEVICE_CHECK_("cuBLAS", cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublasGetStatusName, cublasGetStatusString, \
                      throw_device_error, call)
#define KGATE_CUBLAS_NOEXCEPT(call)                                                                                \
  KGATE_DEVICE_CHECK_("cuBLAS", cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublasGetStatusName, cublasGetStatusString, \
                      report_device_error, call)

#define KGATE_NCCL(call)                                                                                     \
  KGATE_DEVICE_CHECK_("NCCL", ncclResult_t, ncclSuccess, ::kgate::gpu::nccl_result_name, ncclGetErrorString, \
                      throw_device_error, call)
#define KGATE_NCCL_NOEXCEPT(call)                                                                            \
  KGATE_DEVICE_CHECK_("NCCL", ncclResult_t, ncclSuccess, ::kgate::gpu::nccl_result_name, ncclGetErrorString, \
                      report_device_error, call)

// After a kernel launch: launch-configuration errors surface here, not at the next sync.
#define KGATE_CUDA_LAUNCHED() KGATE_CUDA(cudaGetLastError())
