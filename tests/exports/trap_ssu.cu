// An ssu export whose one arm faults on the device: `trap` refuses batch < 8 (not_supported,
// with its reason) and launches a kernel that executes a trap instruction on every other row.
// For tests/gpu/export_fault.sh: under --isolate its rows fail with the CUDA error, and the
// campaign goes on.
#include <cuda_runtime.h>

#include <cstdio>

#include "harness/export/kgate_export.h"
#include "kernels/ssu/abi.h"

namespace {

__global__ void test_ssu_trap_kernel() { __trap(); }

const char* const kKernels[] = {"test_ssu_trap_kernel"};
const char* const kArchs[] = {"sm_90a", "sm_90"};

int trap_supports(const void* args, char* why, size_t why_len) {
  const int batch = static_cast<const ssu_args*>(args)->batch;
  if (batch >= 8) return 0;
  std::snprintf(why, why_len, "trap export: batch %d < 8 is refused (to show a refusal beside a fault)", batch);
  return 1;
}
int trap_launch(const void*, void* stream, char* err, size_t err_len) {
  test_ssu_trap_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>();
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    std::snprintf(err, err_len, "trap export: launch: %s", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

const kgate_export_arm_t kArms[] = {
    {"trap", "traps on the device (batch >= 8)", kKernels, 1, kArchs, 2, trap_supports, trap_launch}};
const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "ssu", kArms, 1};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kgate_export_table_t* kgate_export_table(void) {
  return &kTable;
}
