#pragma once
// Export arms: kernels built outside kgate behind the C ABI of harness/export/kgate_export.h,
// named export:PATH:NAME (PATH a shared library, NAME one of its arms). The loader opens the
// library once per process (dlopen RTLD_NOW | RTLD_LOCAL; it stays loaded), checks the ABI
// version and the family, hashes the file, and registers each of its arms as an Implementation
// (backend "cuda", the table's kernel names and archs, `exported` and `library` set).
//
// What a family's GPU context must do to run export arms (kernels/ssu/gpu_context.cpp does):
//   - set Family::export_sources (the loader refuses a family without them);
//   - derive from gpu::ArmContext (harness/gpu/arm_context.hpp) over the family's C args from
//     kernels/<family>/abi.h: its refusal(impl) is export_refusal(impl, &args), the library's
//     reason for refusing the row ("" when it takes it), asked before any call so a policy may
//     accept the refusal; its launch runs export_launch(impl, &args, stream) instead of the
//     bundled arm (it throws DeviceError with the library's message: the row fails); its
//     config(impl) is null for an export arm (its launch configuration is its own);
//   - in check(impl), before the first launch of the row: if (impl.exported)
//     export_supports(impl, &args) (it throws InputError: the row is not_supported with the
//     library's reason).
#include <string>
#include <vector>

#include "harness/core/registry.hpp"

namespace kgate {

inline constexpr const char* kExportPrefix = "export:";

bool is_export_name(const std::string& arm);

// The portable name of an export arm: export:PATH:NAME becomes export:<file name of PATH>:NAME.
// Receipts, policies and reports name export arms so; no machine path is recorded.
std::string portable_export_name(const std::string& arm);

// Loads the library export:PATH:NAME names (once) and registers its arms under their portable
// names; returns the arm. An arm already registered under its portable name is returned as is;
// two different libraries of one file name in one process are an error.
// `expected_family`, when not empty, is the family the library must implement (the case
// table's). Throws InputError, one line naming the file and what is wrong.
const Implementation& load_export_arm(Registry& r, const std::string& arm, const std::string& expected_family = "");

// Loads the library at `path` (once) and registers every arm; returns their names, in order.
std::vector<std::string> load_export_library(Registry& r, const std::string& path,
                                             const std::string& expected_family = "");

// The calls a family context makes for an export arm (impl.exported set); `args` points to the
// family's C args struct, `stream` is a cudaStream_t.
void export_supports(const Implementation& impl, const void* args);              // InputError if not
std::string export_refusal(const Implementation& impl, const void* args);        // the reason, "" if supported
void export_launch(const Implementation& impl, const void* args, void* stream);  // DeviceError if not 0

}  // namespace kgate
