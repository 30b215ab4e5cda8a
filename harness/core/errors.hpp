#pragma once
// Typed errors; the CLI's one try/catch in main maps each to an exit code (DESIGN.md):
// 0 ok, 1 gate/audit failure, 2 usage or input error, 3 device/runtime failure.
#include <stdexcept>
#include <string>

namespace kgate {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct AuditError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Device memory ran out (an allocation failed, or a row's proof buffers would not leave the reserve
// free): a DeviceError the executor may answer by freeing the inputs it keeps for other rows and
// trying the unit again.
struct MemoryShort : DeviceError {
  using DeviceError::DeviceError;
};

enum ExitCode : int { kExitOk = 0, kExitFail = 1, kExitUsage = 2, kExitDevice = 3 };

}  // namespace kgate
