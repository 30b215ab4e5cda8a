// An ssu export whose library constructor writes a marker file (the path in the environment
// variable KGATE_TEST_CTOR_MARKER): proof of whether kgate opened the library. A run that must
// refuse an export arm before opening it (an export on the CPU backend) leaves no marker.
#include <cstdio>
#include <cstdlib>

#include "harness/export/kgate_export.h"
#include "kernels/ssu/abi.h"

namespace {

__attribute__((constructor)) void write_marker() {
  const char* path = std::getenv("KGATE_TEST_CTOR_MARKER");
  if (!path || !*path) return;
  if (std::FILE* f = std::fopen(path, "w")) {
    std::fputs("constructor ran\n", f);
    std::fclose(f);
  }
}

const char* const kKernels[] = {"test_ssu_marker_kernel"};
const char* const kArchs[] = {"sm_90a"};

int launch(const void*, void*, char* err, size_t err_len) {
  std::snprintf(err, err_len, "test export: no kernel");
  return 1;
}

const kgate_export_arm_t kArms[] = {{"marker", "writes a marker when loaded", kKernels, 1, kArchs, 1, nullptr, launch}};
const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "ssu", kArms, 1};

}  // namespace

extern "C" const kgate_export_table_t* kgate_export_table(void) { return &kTable; }
