// The tensor family: a row declares its operator (params.operator: tensors, scalars, work) and its
// oracle arm (params.reference); the rest of its integer parameters are the dimensions the
// operator's expressions name. No arm is bundled: every arm is an export library of abi.h, on the
// cpu backend a host one. Conventions: kernels/tensor/NOTES.md.
#include "kernels/tensor/family.hpp"

#include "harness/core/artifacts.hpp"
#include "kernels/tensor/config.hpp"

namespace kgate {

void register_family_tensor(Registry& r) {
  using PS = ParamSpec;
  Family f;
  f.name = "tensor";
  f.summary =
      "any operator, described by its case table (tensors, scalars, work); arms are export libraries "
      "of kernels/tensor/abi.h, the oracle one of them";
  f.params = {
      {"operator",
       PS::Kind::Object,
       true,
       0,
       0,
       {},
       {},
       "the operator: {name, tensors: [{name, shape, dtype, strides, fill, access, tolerance}], scalars, work}"},
      {"reference",
       PS::Kind::String,
       true,
       0,
       0,
       {},
       {},
       "the arm whose outputs are the oracle (export:LIB:NAME); the run names it as a --baseline too"},
  };
  f.dimensions = true;
  f.host_exports = true;
  f.reference_param = "reference";
  f.check = &tensor::check_op;
  f.tolerance = &tensor::default_tolerance;
  f.work = [](const json& p) { return tensor::parse_op(p).work; };
  f.make_cpu_context = &tensor::make_cpu_context;
#ifdef KGATE_HAVE_CUDA
  f.make_gpu_context = &tensor::make_gpu_context;
  f.export_sources = built_export_sources(
      "tensor", {"kernels/tensor/cpu_context.cpp", "kernels/tensor/gpu_context.cpp", "kernels/tensor/config.cpp"},
      "cuda");
#else
  f.export_sources =
      built_export_sources("tensor", {"kernels/tensor/cpu_context.cpp", "kernels/tensor/config.cpp"}, "cpu");
#endif
  r.add_family(std::move(f));
}

}  // namespace kgate
