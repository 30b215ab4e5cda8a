// The ssu family: schema, cross-field check, tolerances, the contract of every arm, and the
// check every context applies. Conventions: references/ssu/ssu.hpp.
#include "kernels/ssu/family.hpp"

#include <cstring>

#include "harness/core/registry.hpp"
#include "kernels/ssu/config.hpp"
#ifdef KGATE_HAVE_CUDA
#include "kernels/ssu/gpu_arms.hpp"
#endif

namespace kgate::ssu {
namespace {

std::string check(const json& p) {
  if (p["nheads"].get<int64_t>() % p["ngroups"].get<int64_t>())
    return "ngroups: must divide nheads";
  if (p["pool_slots"].get<int64_t>() < p["batch"].get<int64_t>())
    return "pool_slots: must be >= batch (slots are distinct)";
  if (p["pad_slots"].get<int64_t>() > p["batch"].get<int64_t>())
    return "pad_slots: must be <= batch";
  return "";
}

// What an arm's digest covers: the oracle it is checked against, the contract, its own code.
std::vector<std::string> sources(std::initializer_list<const char*> own) {
  std::vector<std::string> s = {"references/ssu/ssu.hpp", "references/ssu/ssu_ref.cpp", "references/ssu/ssu_check.cpp",
                                "kernels/ssu/abi.h", "kernels/ssu/family.hpp", "kernels/ssu/family.cpp"};
  s.insert(s.end(), own.begin(), own.end());
  return s;
}

void add_arms(Registry& r) {
  const auto cpu = sources({"kernels/ssu/cpu_arms.cpp"});
  r.add({"ssu.cpu_scalar", "ssu", "cpu", "baseline", {"host"}, {}, cpu, "plain fp32 loops over (batch, head, d, n)",
         nullptr, reinterpret_cast<void*>(&cpu_scalar)});
  r.add({"ssu.cpu_eigen", "ssu", "cpu", "candidate", {"host"}, {}, cpu,
         "Eigen rank-1 update + GEMV per (batch, head), threaded", nullptr, reinterpret_cast<void*>(&cpu_eigen_threaded)});
#ifdef KGATE_HAVE_CUDA
  using namespace gpu;
  // launch.cu is one translation unit; an arm's digest names the kernel headers it launches.
  const auto dev = sources({"kernels/ssu/config.hpp", "kernels/ssu/device.cuh", "kernels/ssu/launch.hpp",
                            "kernels/ssu/launch.cu", "kernels/ssu/gpu_context.cpp", "kernels/ssu/gpu_arms.hpp",
                            "references/ssu/ssu_ref_gpu.hpp", "references/ssu/ssu_ref_gpu.cu",
                            "harness/gpu/compare_device.hpp", "harness/gpu/compare_device.cu"});
  for (const ArmInfo& a : kGpuArms) {
    auto src = dev;
    for (const char* h : a.headers)
      if (h) src.push_back(h);
    r.add({a.name, "ssu", "cuda", a.role, {"sm_90a"}, {a.kernel}, src, a.description, nullptr,
           const_cast<void*>(static_cast<const void*>(a.arm))});
  }
#endif
}

}  // namespace

Correctness check_arm(const Implementation& impl, const HostProblem& hp, const std::function<const Reference&()>& ref,
                      const std::vector<float>& state, const std::vector<float>& out, const Tolerance& tol) {
  if (impl.role != "floor") return check_outputs(hp, ref(), state, out, tol);
  // The floor arm only moves the state bytes: it must leave every byte as it found it.
  Correctness c;
  c.elements = static_cast<int64_t>(state.size());
  c.mismatches = std::memcmp(state.data(), hp.state.data(), state.size() * 4) ? 1 : 0;
  for (size_t i = 0; c.mismatches && i < state.size(); ++i)
    if (std::memcmp(&state[i], &hp.state[i], 4)) {
      c.worst = "state[" + std::to_string(i) + "]";
      break;
    }
  c.passed = c.mismatches == 0;
  c.note = "floor arm: state bytes read and written back bit-identical; computes no output";
  return c;
}

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
  f.tolerance = [](const json& p) {
    return p["io_dtype"] == "bf16" ? Tolerance{1e-2, 1e-2} : Tolerance{1e-4, 1e-4};
  };
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
  // the library through harness/export/loader.hpp), against the ABI it was built for.
  f.export_sources = ssu::sources({"kernels/ssu/gpu_context.cpp", "harness/export/kgate_export.h",
                                   "references/ssu/ssu_ref_gpu.hpp", "references/ssu/ssu_ref_gpu.cu",
                                   "harness/gpu/compare_device.hpp", "harness/gpu/compare_device.cu"});
  r.add_family(std::move(f));
  ssu::add_arms(r);
}

}  // namespace kgate
