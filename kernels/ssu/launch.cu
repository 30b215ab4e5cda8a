// ssu GPU launchers: validation at the boundary, the architecture check, the device queries
// the heuristics need, and the dispatch of each chosen config to its kernel instantiation.
// Kernels: baseline.cuh, fast.cuh, floor.cuh; configs: config.hpp; design and measurements: NOTES.md.
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "harness/core/errors.hpp"
#include "harness/gpu/check.hpp"
#include "kernels/ssu/baseline.cuh"
#include "kernels/ssu/fast.cuh"
#include "kernels/ssu/floor.cuh"
#include "kernels/ssu/launch.hpp"

namespace kgate::ssu::gpu {
namespace {

static_assert(ctas_per_head(false, 2, fast_warps(2)) == Geo<float, 2, kSmallWarps>::kCtasPerHead &&
                  ctas_per_head(true, 8) == Geo<__nv_bfloat16, 8>::kCtasPerHead &&
                  ctas_per_head(false, 4) == Geo<float, 4>::kCtasPerHead &&
                  ctas_per_head(false, 8) == Geo<float, 8>::kCtasPerHead,
              "config.hpp's geometry must match the kernels' (fast.cuh Geo)");
static_assert(Geo<float, kFloorChunks>::kThreads == kFastThreads, "2-warp CTAs");

// The kernels are built for sm_90a only (cp.async.bulk, the tuned launch bounds): any other
// device is refused by name instead of failing at launch with "no kernel image".
void require_sm90a(const char* arm) {
  static const int cc = [] {
    int dev = 0, major = 0, minor = 0;
    KGATE_CUDA(cudaGetDevice(&dev));
    KGATE_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    KGATE_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    return major * 10 + minor;
  }();
  if (cc != 90)
    throw InputError(std::string("unsupported: ") + arm + " is built for sm_90a only; this device is sm_" +
                     std::to_string(cc));
}

// Every arm moves the state in 16-byte chunks: a pool that is not 16-byte aligned is refused
// here, before any launch, instead of faulting on the device. Side inputs take any alignment.
Problem checked(const Args& a, const char* arm) {
  const Problem p = Problem::of(a);
  if (std::string why = p.invalid(); !why.empty()) throw InputError(std::string("ssu: ") + arm + ": " + why);
  if (reinterpret_cast<uintptr_t>(a.state) % 16 != 0)
    throw InputError("ssu: the state pool must be 16-byte aligned (the kernels move state in 16-byte chunks); got " +
                     std::to_string(reinterpret_cast<uintptr_t>(a.state) % 16) + " bytes past a 16-byte boundary");
  require_sm90a(arm);
  return p;
}

// CTAs of `threads` threads and `smem` bytes that fit on the device at once (the kernel's
// dynamic shared memory limit raised first), asked once per kernel. Used by the persistent
// floor (its grid) and by the NL = 2 wave rule of ssu.fast.
template <auto kKernel>
int resident_ctas(int threads, int smem) {
  static const int n = [&] {
    KGATE_CUDA(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0, dev = 0, sms = 0;
    KGATE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kKernel, threads, smem));
    KGATE_CUDA(cudaGetDevice(&dev));
    KGATE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return std::max(1, sms * per_sm);
  }();
  return n;
}

template <class F>
void dispatch_types(const Args& a, F&& launch) {
  if (a.state_bf16 && a.io_bf16)
    launch(__nv_bfloat16{}, __nv_bfloat16{});
  else if (a.state_bf16)
    launch(__nv_bfloat16{}, float{});
  else if (a.io_bf16)
    launch(float{}, __nv_bfloat16{});
  else
    launch(float{}, float{});
}

// The wave rule counts resident CTAs of the NL = 2 small-mode kernel (FP32 io instance). Only FP32
// state asks: BF16 rows of the NL = 2 range run the side-warp kernel (config.hpp, kSideTiles).
LaunchConfig fast_config_of(const Args& a) {
  const Problem p = Problem::of(a);
  int resident = 0;
  if (fast_needs_resident_ctas(p) && !a.state_bf16)
    resident = resident_ctas<ssu_fast_kernel<float, float, 2, kFastModesFp32.small, kSmallWarps>>(32 * kSmallWarps, 0);
  return fast_config(p, resident);
}

// One (NL, mode) instantiation of ssu.fast for state type ST; launches when the config names it.
template <int NL, int kMode>
struct FastCase {
  template <class ST>
  static bool launch(const LaunchConfig& c, const Args& a, cudaStream_t s) {
    if (c.chunks_per_lane != NL || c.mode != kMode) return false;
    constexpr int W = fast_warps(NL);
    if (a.io_bf16)
      ssu_fast_kernel<ST, __nv_bfloat16, NL, kMode, W><<<c.grid[0], 32 * W, 0, s>>>(a);
    else
      ssu_fast_kernel<ST, float, NL, kMode, W><<<c.grid[0], 32 * W, 0, s>>>(a);
    return true;
  }
};
template <class ST, const FastModes& M>
void launch_fast_as(const LaunchConfig& c, const Args& a, cudaStream_t s) {
  if constexpr (M.small != 0)  // BF16: none (config.hpp)
    if (FastCase<2, M.small>::template launch<ST>(c, a, s) || FastCase<2, M.small_waves>::template launch<ST>(c, a, s))
      return;
  if (FastCase<4, M.mid>::template launch<ST>(c, a, s) || FastCase<8, M.large>::template launch<ST>(c, a, s)) return;
  throw InputError("unsupported: ssu.fast has no kernel for " + std::string(a.state_bf16 ? "bf16" : "fp32") +
                   " state with " + std::to_string(c.chunks_per_lane) + " chunks per lane in mode " +
                   std::to_string(c.mode) + " (config.hpp chose a case launch.cu does not instantiate)");
}

template <class ST>
int floor_stream_resident_ctas() {
  return resident_ctas<ssu_floor_stream_kernel<ST>>(32 * kStreamWarps, kStreamSmemBytes);
}
LaunchConfig floor_stream_config_of(const Args& a) {
  const int resident = a.state_bf16 ? floor_stream_resident_ctas<__nv_bfloat16>() : floor_stream_resident_ctas<float>();
  return floor_stream_config(Problem::of(a), resident);
}

LaunchConfig baseline_config_of(const Args& a) { return baseline_config(Problem::of(a)); }
LaunchConfig floor_config_of(const Args& a) { return floor_config(Problem::of(a)); }
LaunchConfig floor_copy_config_of(const Args& a) { return floor_copy_config(Problem::of(a)); }

}  // namespace

void validate(const Args& a, const char* arm) { checked(a, arm); }

void launch_baseline(const Args& a, const Pools&, cudaStream_t s) {
  const LaunchConfig c = baseline_config(checked(a, "ssu.baseline"));
  const dim3 grid(c.grid[0], c.grid[1], c.grid[2]);
  dispatch_types(
      a, [&](auto st, auto it) { ssu_baseline_kernel<decltype(st), decltype(it)><<<grid, kBaseThreads, 0, s>>>(a); });
}

// The side-warp kernel for BF16 state at the geometry config.hpp chose.
template <class IT>
void launch_side_warp(const LaunchConfig& c, const Args& a, cudaStream_t s) {
  using T = __nv_bfloat16;
  static_assert(Geo<T, 2, 2>::kCtasPerHead == kP / (2 * rows_per_warp(true, 2)) &&
                    Geo<T, 4, 4>::kCtasPerHead == kP / (4 * rows_per_warp(true, 4)),
                "config.hpp's side geometry must match the kernel's (fast.cuh Geo)");
  const int warps = c.threads / 32 - 1;
  if (warps == 2 && c.chunks_per_lane == 2)
    ssu_fast_kernel_side_warp<T, IT, 2, 2><<<c.grid[0], c.threads, 0, s>>>(a);
  else if (warps == 4 && c.chunks_per_lane == 4)
    ssu_fast_kernel_side_warp<T, IT, 4, 4><<<c.grid[0], c.threads, 0, s>>>(a);
  else
    throw InputError("unsupported: ssu.fast has no side-warp kernel of " + std::to_string(warps) + " state warps at " +
                     std::to_string(c.chunks_per_lane) +
                     " chunks per lane (config.hpp chose a case launch.cu does not instantiate)");
}

void launch_fast(const Args& a, const Pools&, cudaStream_t s) {
  checked(a, "ssu.fast");
  const LaunchConfig c = fast_config_of(a);
  if (c.mode & kSideWarp) {
    if (a.io_bf16)
      launch_side_warp<__nv_bfloat16>(c, a, s);
    else
      launch_side_warp<float>(c, a, s);
  } else if (a.state_bf16)
    launch_fast_as<__nv_bfloat16, kFastModesBf16>(c, a, s);
  else
    launch_fast_as<float, kFastModesFp32>(c, a, s);
}

void launch_floor(const Args& a, const Pools&, cudaStream_t s) {
  const LaunchConfig c = floor_config(checked(a, "ssu.floor"));
  if (a.state_bf16)
    ssu_floor_kernel<__nv_bfloat16><<<c.grid[0], kFastThreads, 0, s>>>(a);
  else
    ssu_floor_kernel<float><<<c.grid[0], kFastThreads, 0, s>>>(a);
}

void launch_floor_copy(const Args& a, const Pools& pools, cudaStream_t s) {
  const Problem p = checked(a, "ssu.floor_copy");
  if (!pools.second)
    throw InputError(
        "unsupported: ssu.floor_copy writes into a second pool, which only kgate's ssu row context provides "
        "(the ssu ABI carries one pool)");
  const LaunchConfig c = floor_copy_config(p);
  if (a.state_bf16)
    ssu_floor_copy_kernel<__nv_bfloat16><<<c.grid[0], kCopyThreads, 0, s>>>(a, pools.second);
  else
    ssu_floor_copy_kernel<float><<<c.grid[0], kCopyThreads, 0, s>>>(a, pools.second);
}

void launch_floor_stream(const Args& a, const Pools&, cudaStream_t s) {
  checked(a, "ssu.floor_stream");
  const LaunchConfig c = floor_stream_config_of(a);
  const int tiles = floor_stream_tiles(c.problem), nwarps = static_cast<int>(c.grid[0]) * kStreamWarps;
  if (a.state_bf16)
    ssu_floor_stream_kernel<__nv_bfloat16><<<c.grid[0], c.threads, c.smem_bytes, s>>>(a, tiles, nwarps);
  else
    ssu_floor_stream_kernel<float><<<c.grid[0], c.threads, c.smem_bytes, s>>>(a, tiles, nwarps);
}

// Each arm's one kernel. ssu.fast's side-warp kernel, ssu_fast_kernel_side_warp, matches its
// declared name (a substring).
constexpr const char* kBaselineKernels[] = {"ssu_baseline_kernel"};
constexpr const char* kFastKernels[] = {"ssu_fast_kernel"};
constexpr const char* kFloorKernels[] = {"ssu_floor_kernel"};
constexpr const char* kFloorStreamKernels[] = {"ssu_floor_stream_kernel"};
constexpr const char* kFloorCopyKernels[] = {"ssu_floor_copy_kernel"};

const Arm kBaselineArm{&launch_baseline, &baseline_config_of, kBaselineKernels};
const Arm kFastArm{&launch_fast, &fast_config_of, kFastKernels};
const Arm kFloorArm{&launch_floor, &floor_config_of, kFloorKernels};
const Arm kFloorStreamArm{&launch_floor_stream, &floor_stream_config_of, kFloorStreamKernels};
const Arm kFloorCopyArm{&launch_floor_copy, &floor_copy_config_of, kFloorCopyKernels, {.out_of_place = true}};

}  // namespace kgate::ssu::gpu
