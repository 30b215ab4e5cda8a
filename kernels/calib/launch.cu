// calib launchers. The kernels: calib.cuh.
#include <string>

#include "harness/core/errors.hpp"
#include "harness/gpu/backend.hpp"
#include "harness/gpu/check.hpp"
#include "kernels/calib/calib.cuh"
#include "kernels/calib/launch.hpp"

namespace kgate::calib {

void launch_timed(const calib_args& a, cudaStream_t s) {
  if (a.kind == CALIB_SPIN) {
    calib_spin<<<1, 1, 0, s>>>(a.cycles, a.out);
    KGATE_CUDA_LAUNCHED();
  } else if (a.kind == CALIB_OVERLAP) {
    auto side = static_cast<cudaStream_t>(a.side_stream);
    auto fork = static_cast<cudaEvent_t>(a.fork_event), join = static_cast<cudaEvent_t>(a.join_event);
    KGATE_CUDA(cudaEventRecord(fork, s));
    KGATE_CUDA(cudaStreamWaitEvent(side, fork, 0));
    calib_spin<<<1, 1, 0, s>>>(a.cycles, a.out);
    KGATE_CUDA_LAUNCHED();
    calib_spin<<<1, 1, 0, side>>>(a.delay_cycles, a.out + 3);
    KGATE_CUDA_LAUNCHED();
    calib_spin<<<1, 1, 0, side>>>(a.cycles, a.out + 6);
    KGATE_CUDA_LAUNCHED();
    KGATE_CUDA(cudaEventRecord(join, side));
    KGATE_CUDA(cudaStreamWaitEvent(s, join, 0));
  } else if (a.kind == CALIB_COPY) {
    KGATE_CUDA(cudaMemcpyAsync(a.dst, a.src, a.bytes, cudaMemcpyDeviceToDevice, s));
  } else {
    throw InputError("unsupported: calib kind " + std::to_string(a.kind) + " (spin, overlap or copy)");
  }
}

void launch_spin_longer(const calib_args& a, cudaStream_t s) {
  if (a.kind != CALIB_SPIN) throw InputError("calib.spin_longer: spin rows only");
  calib_args b = a;
  b.cycles = a.cycles + a.cycles / 50;  // 2 % more SM cycles than calib.spin
  launch_timed(b, s);
}

void launch_fault(const calib_args&, cudaStream_t s) {
  calib_fault<<<1, 1, 0, s>>>();
  KGATE_CUDA_LAUNCHED();
}

// A copy row's cudaMemcpyAsync is a "memcpy" activity; spin_longer runs spin rows only.
constexpr const char* kTimedKernels[] = {"calib_spin", "memcpy"};
constexpr const char* kSpinKernels[] = {"calib_spin"};
constexpr const char* kFaultKernels[] = {"calib_fault"};

const Arm kTimedArm{&launch_timed, nullptr, kTimedKernels};
const Arm kSpinLongerArm{&launch_spin_longer, nullptr, kSpinKernels};
const Arm kFaultArm{&launch_fault, nullptr, kFaultKernels};

double measure_sm_clock_mhz(cudaStream_t s) {
  gpu::DeviceBuffer out(3 * sizeof(unsigned long long));
  unsigned long long h[3];
  double mhz = 0;
  for (int i = 0; i < 3; ++i) {  // 20 ms spins; keep the last (clocks settle under load)
    calib_spin<<<1, 1, 0, s>>>(40'000'000, out.as<unsigned long long>());
    KGATE_CUDA_LAUNCHED();
    KGATE_CUDA(cudaStreamSynchronize(s));
    out.download(h, sizeof h);
    mhz = static_cast<double>(h[0]) / (static_cast<double>(h[2] - h[1]) / 1000.0);
  }
  return mhz;
}

}  // namespace kgate::calib
