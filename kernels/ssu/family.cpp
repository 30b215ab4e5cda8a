// The ssu family: schema, cross-field check and the contract of every arm. What decides a
// verdict (tolerances, the check every context applies) lives with the oracle, in
// references/ssu/ssu_check.cpp, so that it is one of every arm's sources; this file is not.
// Conventions: references/ssu/ssu.hpp.
#include "kernels/ssu/family.hpp"

#include "harness/core/artifacts.hpp"
#include "harness/core/registry.hpp"
#include "kernels/ssu/arms.hpp"
#include "kernels/ssu/config.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate::ssu {
namespace {

std::string check(const json& p) {
  if (p["nheads"].get<int64_t>() % p["ngroups"].get<int64_t>()) return "ngroups: must divide nheads";
  if (p["pool_slots"].get<int64_t>() < p["batch"].get<int64_t>())
    return "pool_slots: must be >= batch (slots are distinct)";
  if (p["pad_slots"].get<int64_t>() > p["batch"].get<int64_t>()) return "pad_slots: must be <= batch";
  return "";
}

void add_family_arms(Registry& r) {
  // An arm's sources: the dependencies of the units that implement it, and the oracle's.
  add_arms(r, {"ssu", "cpu", {"host"}, built_arm_sources("ssu", "cpu", {"kernels/ssu/cpu_arms.cpp"})}, kCpuArms);
#ifdef KGATE_HAVE_CUDA
  add_arms(r,
           {"ssu", "cuda", kgate::gpu::built_archs(),
            built_arm_sources("ssu", "cuda", {"kernels/ssu/launch.cu", "kernels/ssu/gpu_context.cpp"})},
           kGpuArms);
#endif
}

}  // namespace

}  // namespace kgate::ssu

namespace kgate {

void register_family_ssu(Registry& r) {
  using PS = ParamSpec;
  Family f;
  f.name = "ssu";
  f.summary = "Mamba2 selective_state_update, single-token decode (headdim 64, dstate 128)";
  f.params = {
      {"batch", PS::Kind::Int, true, 1, 1 << 20, {}, {}, "decode tokens (one per request)"},
      {"nheads", PS::Kind::Int, true, 1, 1 << 12, {}, {}, "heads"},
      {"ngroups", PS::Kind::Int, true, 1, 1 << 12, {}, {}, "B/C groups; divides nheads"},
      {"pool_slots", PS::Kind::Int, true, 1, 1 << 22, {}, {}, "state pool entries (>= batch)"},
      {"state_dtype", PS::Kind::String, true, 0, 0, {"bf16", "fp32"}, {}, "state pool dtype"},
      {"io_dtype", PS::Kind::String, false, 0, 0, {"bf16", "fp32"}, "bf16", "x, B, C, z, out dtype"},
      {"weight_dtype", PS::Kind::String, false, 0, 0, {"bf16", "fp32"}, "fp32", "dt, A, D, dt_bias dtype"},
      {"softplus", PS::Kind::Bool, false, 0, 0, {}, true, "softplus on dt + dt_bias"},
      {"has_z", PS::Kind::Bool, false, 0, 0, {}, false, "gate out by z * sigmoid(z)"},
      {"pad_slots", PS::Kind::Int, false, 0, 1 << 20, {}, 0, "batch entries with slot -1"},
      {"fused_extra", PS::Kind::Int, false, 0, 1 << 16, {}, 0, "extra elements in the x/B/C/z batch stride"},
  };
  f.check = ssu::check;
  f.tolerance = &ssu::tolerance;  // references/ssu/ssu_check.cpp
  // Bytes: the owned state tiles read + written once in place, plus every side tensor once;
  // FLOPs: the update and output arithmetic (kernels/ssu/config.hpp, work_terms).
  f.work = [](const json& p) {
    const ssu::WorkTerms t = ssu::work_terms(p);
    return Work{t.state_bytes + t.side_bytes, t.flops};
  };
  f.make_cpu_context = &ssu::make_cpu_context;
#ifdef KGATE_HAVE_CUDA
  f.make_gpu_context = &ssu::make_gpu_context;
#endif
  // An export arm is checked by the same oracle and run by the same GPU context (which calls
  // the library through harness/export/loader.hpp): the context's and the oracle's sources.
#ifdef KGATE_HAVE_CUDA
  f.export_sources = built_export_sources("ssu", {"kernels/ssu/gpu_context.cpp"});
#else
  // Without the GPU backend no context runs an export arm; the loader still reads libraries.
  f.export_sources = built_export_sources("ssu", {});
#endif
  r.add_family(std::move(f));
  ssu::add_family_arms(r);
}

}  // namespace kgate
