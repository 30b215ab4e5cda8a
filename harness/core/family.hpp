#pragma once
// A kernel family: its parameter schema, cross-field checks, default tolerances, and how to
// make a row's inputs and reference on each backend. Implementations register separately.
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/core/jcs.hpp"

namespace kgate {

struct CaseRow;
struct Implementation;
class RowContext;
namespace gpu {
class GpuBackend;  // harness/gpu/backend.hpp, built with the GPU backend only
}

struct ParamSpec {
  enum class Kind { Int, Bool, String, Object };  // Object: a JSON object the family's check validates
  std::string name;
  Kind kind = Kind::Int;
  bool required = true;
  int64_t min = 1;  // ints: inclusive bounds
  int64_t max = std::numeric_limits<int64_t>::max();
  std::vector<std::string> choices;  // strings: allowed values (empty = any)
  json fallback;                     // used when not required and absent
  std::string help;
};

struct Tolerance {
  double atol = 1e-2, rtol = 1e-2;
};

// What one call of an arm must do at least, by the family's model of a row (nvbench's
// add_global_memory_reads/writes, add_element_count): bytes that must cross DRAM once, and
// FLOPs. Reports turn a time into TB/s and TFLOP/s and percent of the device's measured peaks.
struct Work {
  double bytes = 0;  // minimum DRAM traffic, reads + writes
  double flops = 0;  // arithmetic (multiply-add = 2), 0 for a pure data mover
  bool operator==(const Work&) const = default;
};

struct Family {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
  // Extra checks over the normalized params; return "field: message" or empty when valid.
  std::function<std::string(const json& params)> check;
  std::function<Tolerance(const json& params)> tolerance;
  // The work model: a pure function of the normalized params (absent: no model).
  std::function<Work(const json& params)> work;
  // CPU backend: inputs + double-precision reference on the host.
  std::function<std::unique_ptr<RowContext>(const CaseRow&, uint64_t seed)> make_cpu_context;
  // GPU backend (set by the GPU library when built with CUDA).
  std::function<std::unique_ptr<RowContext>(const CaseRow&, uint64_t seed, gpu::GpuBackend& be)> make_gpu_context;
  // Export arms (harness/export/loader.hpp): the tree files every arm's result depends on
  // besides its own code (oracle, abi.h, contract, GPU context), recorded as an export arm's
  // sources beside its library. Empty: the family's GPU context does not call export arms yet,
  // and the loader refuses a library of this family.
  std::vector<std::string> export_sources;
  // A family described by data (kernels/tensor/): a row may hold integer parameters beyond the
  // schema, its dimensions (names of letters, digits and '_', values >= 0), which the schema's
  // expressions name.
  bool dimensions = false;
  // The family's CPU context runs export arms built for "host" (host pointers): a cpu run opens
  // the libraries its arms name instead of refusing them unopened.
  bool host_exports = false;
  // The string parameter naming each row's oracle arm, when the oracle is an arm (an export, by
  // its portable name): the run must name that arm too (as --baseline), so its library is a
  // subject of the receipt. Empty: the family's oracle is its own reference code.
  std::string reference_param;
};

// Validates and fills defaults: returns the normalized params or "field: message".
std::string normalize_params(const Family& f, const json& in, json& out);

}  // namespace kgate
