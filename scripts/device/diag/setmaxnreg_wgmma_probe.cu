// Compile-only probe: can a 512-thread CTA (two producer warpgroups beside the two consumer
// warpgroups of sparse_mla's warp-specialized kernel) give a consumer warpgroup the registers of an m64n256k16 wgmma
// with A from registers through setmaxnreg.inc? No: ptxas sizes the wgmma's operands by the kernel's launch bound
// (65536 / 512 = 128 registers), not by the setmaxnreg.inc region:
//   nvcc -gencode arch=compute_90a,code=sm_90a -O3 -c scripts/device/diag/setmaxnreg_wgmma_probe.cu -Xptxas -v -I.
//   -> k<384>: compiles (ptxas injects warpgroup.arrive/wait as usual);
//      k<512>: "ptxas fatal: (C7602) Insufficient registers (128) to compile instruction ... Try to compile with register
//      target of 158 or higher."
// (Plain FFMA code in such a region compiles, spilling as it would at the region's count: only the wgmma's register
// operands are bound to the launch's count.) kernels/sparse_mla/NOTES.md, "The carryover ...".
#include <cstdint>

#include "kernels/sparse_mla/fast_ws.cuh"  // reg_alloc, reg_dealloc (setmaxnreg); wgmma.cuh's wgmma_m64n256k16_rs_tb

using namespace kgate::sparse_mla::gpu;

// Warpgroup 0 at 200 registers runs m64n256k16 wgmmas (A from registers) into 128 fp32 accumulators; the other
// warpgroups give registers back (512 threads: 200 + 3 x 96 <= 4 x 128; 384: 200 + 2 x 152 <= 3 x 168).
template <int T, int R>
__global__ void __launch_bounds__(T, 1) probe(float* out, uint64_t desc, int n) {
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x >> 7), 0);
  if (wg == 0) {
    reg_alloc<200>();
    float o[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) o[i] = 0.f;
    for (int it = 0; it < n; ++it) {
      const uint32_t af[4] = {static_cast<uint32_t>(it), static_cast<uint32_t>(it) + 1, static_cast<uint32_t>(it) + 2,
                              static_cast<uint32_t>(it) + 3};
      wgmma_m64n256k16_rs_tb(o, af, desc + static_cast<uint64_t>(it), 1);
    }
#pragma unroll
    for (int i = 0; i < 128; ++i) out[i * 128 + threadIdx.x] = o[i];
  } else {
    reg_dealloc<R>();
    out[threadIdx.x] = 1.0f;
  }
}
template __global__ void probe<384, 152>(float*, uint64_t, int);
template __global__ void probe<512, 96>(float*, uint64_t, int);
