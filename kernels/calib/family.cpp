// The calib family: kernels whose true duration is known, to prove the timer (GPU only).
//  - spin:    one thread spins for `us` microseconds of SM clock (clock64 cycles converted with
//             the SM clock measured at start-up); it reports its own cycle count.
//  - overlap: stream 1 spins T = us; stream 2 spins (1 - overlap_pct/100) T, then T: the two
//             T-long kernels overlap by overlap_pct % of T. Union = (2 - f) T, sum = (3 - f) T.
//             Each kernel reports its own globaltimer interval; their union is the expected time.
//  - copy:    cudaMemcpyAsync of `bytes` bytes device to device (no self clock).
// Arms: calib.spin and calib.spin_twin (one implementation registered twice: the A/A pair),
// calib.spin_longer (the same spin, 2 % more cycles: a known real difference) and calib.fault,
// the negative control that traps on every row.
#include "kernels/calib/family.hpp"

#include "harness/core/artifacts.hpp"
#include "kernels/calib/arms.hpp"
#include "kernels/calib/config.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

namespace kgate {

// Without the GPU backend there is nothing to calibrate: the family is not registered.
void register_family_calib([[maybe_unused]] Registry& r) {
#ifdef KGATE_HAVE_CUDA
  using PS = ParamSpec;
  Family f;
  f.name = "calib";
  f.summary = "timer calibration: spin kernels of known duration, an overlapping pair, a D2D copy (GPU only)";
  f.params = {
      {"kind", PS::Kind::String, true, 0, 0, {"spin", "overlap", "copy"}, {}, "what the arm launches"},
      {"us", PS::Kind::Int, false, 0, 10'000'000, {}, 10, "spin duration, microseconds of SM clock (0: an empty spin)"},
      {"overlap_pct", PS::Kind::Int, false, 0, 100, {}, 50, "overlap: percent of T the two kernels overlap"},
      {"bytes", PS::Kind::Int, false, 1, int64_t(1) << 36, {}, 1 << 24, "copy: bytes"},
  };
  f.tolerance = &calib::tolerance;                                                   // config.hpp
  f.work = [](const json& p) { return calib::work(calib::Problem::from_json(p)); };  // config.hpp
  f.make_gpu_context = &calib::make_gpu_context;
  r.add_family(std::move(f));

  // An arm's sources: the dependencies of the units that implement it (calib has no oracle).
  add_arms(r,
           {"calib", "cuda", kgate::gpu::built_archs(),
            built_arm_sources("calib", "cuda", {"kernels/calib/launch.cu", "kernels/calib/gpu_context.cpp"})},
           calib::kGpuArms);
#endif
}

}  // namespace kgate
