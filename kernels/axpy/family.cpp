// The axpy family: y = a * x + y, CPU only. It is the template a new family copies (kernels/
// README.md): schema, tolerances and work model, the arm table registered with add_arms, the
// CPU row context. Conventions: references/axpy/axpy.hpp.
#include "kernels/axpy/family.hpp"

#include "harness/core/artifacts.hpp"
#include "kernels/axpy/arms.hpp"
#include "kernels/axpy/config.hpp"

namespace kgate {

void register_family_axpy(Registry& r) {
  using PS = ParamSpec;
  Family f;
  f.name = "axpy";
  f.summary = "y = a * x + y over fp32 vectors, in place (CPU only: the template family)";
  f.params = {
      {"n", PS::Kind::Int, true, 1, int64_t{1} << 28, {}, {}, "elements"},
      {"a_milli", PS::Kind::Int, false, -1'000'000, 1'000'000, {}, 1500, "the scale a, in thousandths"},
  };
  f.tolerance = &axpy::tolerance;                                                  // references/axpy/axpy_ref.cpp
  f.work = [](const json& p) { return axpy::work(axpy::Problem::from_json(p)); };  // config.hpp
  f.make_cpu_context = &axpy::make_cpu_context;
  // No export_sources: no context of this family runs export arms (the loader refuses them).
  r.add_family(std::move(f));
  // An arm's sources: the dependencies of the units that implement it, and the oracle's.
  add_arms(r, {"axpy", "cpu", {"host"}, built_arm_sources("axpy", "cpu", {"kernels/axpy/cpu_arms.cpp"})},
           axpy::kCpuArms);
}

}  // namespace kgate
