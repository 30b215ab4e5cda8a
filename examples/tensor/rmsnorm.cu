/* RMSNorm as a CUDA export of kgate's tensor family, the same operator and case table as
   rmsnorm.c: y[r,:] = x[r,:] / sqrt(mean(x[r,:]^2) + eps) * w. One block per row; rmsnorm.mine
   sums in float (the kernel under test), rmsnorm.ref in double (the oracle the table names).
   Build: nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -I<kgate include dir> rmsnorm.cu -o librmsnorm.so */
#include "kgate_export.h"
#include "tensor/abi.h"

template <class S>
__global__ void norm(const float* x, const float* w, float* y, int cols, long xs, long ys, double eps) {
  const float* xr = x + blockIdx.x * xs;
  float* yr = y + blockIdx.x * ys;
  __shared__ S part[32];
  S s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += (S)xr[c] * xr[c];
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  s = 0;
  for (int i = 0; i < blockDim.x / 32; ++i) s += part[i];
  const S inv = 1 / sqrt(s / cols + (S)eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = (float)(xr[c] * inv * w[c]);
}

template <class S>
static int run(const void* args, void* stream, char* err, size_t len) {
  const tensor_args* a = (const tensor_args*)args;
  const kgate_tensor *x = kgate_tensor_named(a, "x"), *w = kgate_tensor_named(a, "w"), *y = kgate_tensor_named(a, "y");
  norm<S><<<(unsigned)x->shape[0], 256, 0, (cudaStream_t)stream>>>((const float*)x->data, (const float*)w->data,
                                                                   (float*)y->data, (int)x->shape[1], x->strides[0],
                                                                   y->strides[0], kgate_scalar_named(a, "eps", 1e-6));
  return cudaGetLastError() != cudaSuccess;
}

static const char* const kArch[] = {"sm_90a"};
static const char* const kMine[] = {"norm"};
static const kgate_export_arm_t kArms[] = {
    {"rmsnorm.mine", "one block per row, float sums", kMine, 1, kArch, 1, NULL, run<float>},
    {"rmsnorm.ref", "one block per row, double sums: the oracle", kMine, 1, kArch, 1, NULL, run<double>},
};
static const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "tensor", kArms, 2};
extern "C" const kgate_export_table_t* kgate_export_table(void) { return &kTable; }
