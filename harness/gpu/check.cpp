// The error path of every check macro. No library behind it but the CUDA runtime: an export
// library (kgate export) compiles it too. The CUPTI names, which need libcupti: check_cupti.cpp.
#include "harness/gpu/check.hpp"

#include <cstdio>

namespace kgate::gpu {

std::string device_error_message(const char* subsystem, const char* file, int line, const char* call,
                                 const std::string& name, const std::string& text) {
  return std::string(subsystem) + " error at " + file + ":" + std::to_string(line) + ": " + call + " -> " + name +
         " (" + text + ")";
}

void throw_device_error(const char* subsystem, const char* file, int line, const char* call, const std::string& name,
                        const std::string& text) {
  std::string what = device_error_message(subsystem, file, line, call, name, text);
  if (name == "cudaErrorMemoryAllocation") throw MemoryShort(what);
  throw DeviceError(what);
}

void report_device_error(const char* subsystem, const char* file, int line, const char* call, const std::string& name,
                         const std::string& text) noexcept {
  try {
    std::fprintf(stderr, "kgate: %s\n", device_error_message(subsystem, file, line, call, name, text).c_str());
  } catch (...) {
    std::fprintf(stderr, "kgate: %s error at %s:%d (out of memory describing it)\n", subsystem, file, line);
  }
}

std::string nccl_result_name(ncclResult_t r) {
  switch (r) {
    case ncclSuccess:
      return "ncclSuccess";
    case ncclUnhandledCudaError:
      return "ncclUnhandledCudaError";
    case ncclSystemError:
      return "ncclSystemError";
    case ncclInternalError:
      return "ncclInternalError";
    case ncclInvalidArgument:
      return "ncclInvalidArgument";
    case ncclInvalidUsage:
      return "ncclInvalidUsage";
    case ncclRemoteError:
      return "ncclRemoteError";
    case ncclInProgress:
      return "ncclInProgress";
    default:
      return "ncclResult_t " + std::to_string(static_cast<int>(r));
  }
}

}  // namespace kgate::gpu
