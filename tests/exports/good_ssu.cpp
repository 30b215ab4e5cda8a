// A well-formed ssu export with two arms and no kernels behind them: `fails` launches nothing
// and returns an error code, `picky` refuses every case. For the loader's CPU tests.
#include <cstdio>

#include "harness/export/kgate_export.h"
#include "kernels/ssu/abi.h"

namespace {

const char* const kFailsKernels[] = {"test_ssu_fails_kernel"};
const char* const kPickyKernels[] = {"test_ssu_picky_kernel", "test_ssu_picky_epilogue"};
const char* const kArchs[] = {"sm_90a"};

int fails_launch(const void* args, void*, char* err, size_t err_len) {
  const auto* a = static_cast<const ssu_args*>(args);
  std::snprintf(err, err_len, "test export: no kernel (batch %d)", a->batch);
  return 7;
}
int picky_supports(const void*, char* why, size_t why_len) {
  std::snprintf(why, why_len, "test export: supports nothing");
  return 1;
}
int picky_launch(const void*, void*, char*, size_t) { return 0; }

const kgate_export_arm_t kArms[] = {
    {"fails", "launch returns 7", kFailsKernels, 1, kArchs, 1, nullptr, fails_launch},
    {"picky", nullptr, kPickyKernels, 2, kArchs, 1, picky_supports, picky_launch},
};
const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, KGATE_TEST_FAMILY, kArms, 2};

}  // namespace

extern "C" const kgate_export_table_t* kgate_export_table(void) {
#ifdef KGATE_TEST_ABI_VERSION
  static kgate_export_table_t t = kTable;
  t.abi_version = KGATE_TEST_ABI_VERSION;
  return &t;
#else
  return &kTable;
#endif
}
