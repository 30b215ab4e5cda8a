// A kernel team's export, whole: one naive ssu arm (a thread per state row), BF16 state and io,
// fp32 weights. Copy it, put your kernel in, keep the table. Build it against a kgate checkout:
//   nvcc -O3 -gencode arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -I$KGATE example_ssu.cu -o my_ssu.so
// Run it:  kgate run --cases cases/ssu.json --candidate export:my_ssu.so:my.naive --baseline ssu.fast
#include <cuda_bf16.h>
#include <cstdio>
#include "harness/export/kgate_export.h"  // the ABI; ssu_args and its conventions: kernels/ssu/abi.h
#include "kernels/ssu/abi.h"
using bf16 = __nv_bfloat16;

__global__ void my_naive_ssu_kernel(ssu_args a) {
  const int b = blockIdx.x, h = blockIdx.y, d = threadIdx.x, g = h / (a.nheads / a.ngroups), slot = a.slots[b];
  const bf16 *x = (const bf16*)a.x + b * a.x_stride + h * 64, *B = (const bf16*)a.B + b * a.bc_stride + g * 128,
             *C = (const bf16*)a.C + b * a.bc_stride + g * 128;
  float dt = ((const float*)a.dt)[b * a.nheads + h] + ((const float*)a.dt_bias)[h];
  if (a.softplus) dt = dt > 20.f ? dt : log1pf(expf(dt));
  const float dA = expf(((const float*)a.A)[h] * dt), xd = __bfloat162float(x[d]);
  bf16* s = slot < 0 ? nullptr : (bf16*)a.state + (((long long)slot * a.nheads + h) * 64 + d) * 128;  // -1: pad
  float out = ((const float*)a.D)[h] * xd;
  for (int n = 0; n < 128; ++n) {
    const float v = (s ? __bfloat162float(s[n]) * dA : 0.f) + dt * __bfloat162float(B[n]) * xd;
    if (s) s[n] = __float2bfloat16(v);
    out += v * __bfloat162float(C[n]);
  }
  if (a.has_z) {
    const float z = __bfloat162float(((const bf16*)a.z)[b * a.x_stride + h * 64 + d]);
    out *= z / (1.f + expf(-z));
  }
  ((bf16*)a.out)[(b * a.nheads + h) * 64 + d] = __float2bfloat16(out);
}
int supports(const void* p, char* why, size_t n) {
  const ssu_args* a = (const ssu_args*)p;
  if (a->state_bf16 && a->io_bf16 && !a->weight_bf16) return 0;
  return snprintf(why, n, "my.naive: BF16 state and io, fp32 weights only"), 1;
}
int launch(const void* p, void* stream, char* err, size_t n) {
  const ssu_args* a = (const ssu_args*)p;
  my_naive_ssu_kernel<<<dim3(a->batch, a->nheads), 64, 0, (cudaStream_t)stream>>>(*a);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? 0 : (snprintf(err, n, "my.naive: %s", cudaGetErrorString(e)), 1);
}
const char *const kKernels[] = {"my_naive_ssu_kernel"}, *const kArchs[] = {"sm_90a"};
const kgate_export_arm_t kArms[] = {{"my.naive", "one thread per state row", kKernels, 1, kArchs, 1, supports, launch}};
const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "ssu", kArms, 1};
extern "C" const kgate_export_table_t* kgate_export_table(void) { return &kTable; }
