// ssu's bundled GPU arms as an export library (`kgate export --family ssu --arms ...`): the
// launchers of launch.cu behind the C ABI, named as the bundled arms are (arms.hpp), so a
// kernel team can measure the same kernel through both routes, or two commits' exports.
#include <cuda_runtime.h>

#include <stdexcept>
#include <utility>

#include "harness/export/bundled.hpp"
#include "kernels/ssu/arms.hpp"

namespace {

using kgate::ssu::kGpuArms;

constexpr size_t kArms = sizeof(kGpuArms) / sizeof(kGpuArms[0]);
const char* const kArchs[] = {"sm_90a"};

template <size_t I>
int supports(const void* args, char* why, size_t why_len) {
  return kgate::bundled::guarded(why, why_len, [&] {
    if (kGpuArms[I].arm->traits.out_of_place)
      throw std::runtime_error(std::string(kGpuArms[I].name) +
                               " writes into a second pool, which the export ABI does not carry");
    kgate::ssu::gpu::validate(*static_cast<const ssu_args*>(args), kGpuArms[I].name);
  });
}

template <size_t I>
int launch(const void* args, void* stream, char* err, size_t err_len) {
  return kgate::bundled::guarded(err, err_len, [&] {
    kGpuArms[I].arm->launch(*static_cast<const ssu_args*>(args), {}, static_cast<cudaStream_t>(stream));
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess)
      throw std::runtime_error(std::string(kGpuArms[I].name) + ": launch failed: " + cudaGetErrorString(e));
  });
}

template <size_t I>
kgate_export_arm_t entry() {
  const auto& a = kGpuArms[I];
  return {a.name, a.description, a.arm->kernels.data(), a.arm->kernels.size(), kArchs, 1, &supports<I>, &launch<I>};
}

template <size_t... I>
auto all_entries(std::index_sequence<I...>) {
  static const kgate_export_arm_t arms[] = {entry<I>()...};
  return arms;
}
const kgate_export_arm_t* const kAll = all_entries(std::make_index_sequence<kArms>{});

}  // namespace

extern "C" const kgate_export_table_t* kgate_export_table(void) { return kgate::bundled::table_of("ssu", kAll, kArms); }
