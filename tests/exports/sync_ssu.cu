// An ssu export whose one arm waits for its stream inside its call: `sync` launches a kernel, then
// synchronizes the stream, a host sync that no CUDA-graph capture allows. For
// tests/gpu/graph_launch.sh: under --launch graph its rows refuse it with the capture's reason. It
// computes nothing (it is never checked: the refusal comes first).
#include <cuda_runtime.h>

#include <cstdio>

#include "harness/export/kgate_export.h"

namespace {

__global__ void test_ssu_sync_kernel() {}

const char* const kKernels[] = {"test_ssu_sync_kernel"};
const char* const kArchs[] = {"sm_90a", "sm_90"};

int sync_launch(const void*, void* stream, char* err, size_t err_len) {
  const auto s = static_cast<cudaStream_t>(stream);
  test_ssu_sync_kernel<<<1, 32, 0, s>>>();
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) {
    std::snprintf(err, err_len, "sync export: %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

const kgate_export_arm_t kArms[] = {
    {"sync", "synchronizes its stream inside the call", kKernels, 1, kArchs, 2, nullptr, sync_launch}};
const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "ssu", kArms, 1};

}  // namespace

extern "C" __attribute__((visibility("default"))) const kgate_export_table_t* kgate_export_table(void) {
  return &kTable;
}
