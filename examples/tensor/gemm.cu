/* C[m,n] = A[m,k] B[k,n] (bf16 in, f32 out, row-major) as a CUDA export of kgate's tensor family.
   gemm.mine: a 16x16 shared-memory tiled kernel (the kernel under test); gemm.cublas: cuBLAS
   (cublasGemmEx, f32 accumulate), the oracle and baseline the table names. Build:
   nvcc -O3 -arch=sm_90a -shared -Xcompiler -fPIC -I<kgate include dir> gemm.cu -o libgemm.so -lcublas */
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "kgate_export.h"
#include "tensor/abi.h"

#define T 16
__global__ void tiled(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int m, int n, int k) {
  __shared__ float a[T][T], b[T][T];
  const int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < k; k0 += T) {
    a[threadIdx.y][threadIdx.x] =
        r < m && k0 + threadIdx.x < k ? __bfloat162float(A[(long)r * k + k0 + threadIdx.x]) : 0;
    b[threadIdx.y][threadIdx.x] =
        c < n && k0 + threadIdx.y < k ? __bfloat162float(B[(long)(k0 + threadIdx.y) * n + c]) : 0;
    __syncthreads();
    for (int i = 0; i < T; ++i) acc += a[threadIdx.y][i] * b[i][threadIdx.x];
    __syncthreads();
  }
  if (r < m && c < n) C[(long)r * n + c] = acc;
}

static int mine(const void* args, void* stream, char* err, size_t len) {
  const tensor_args* t = (const tensor_args*)args;
  const kgate_tensor *A = kgate_tensor_named(t, "a"), *B = kgate_tensor_named(t, "b"), *C = kgate_tensor_named(t, "c");
  const int m = (int)A->shape[0], k = (int)A->shape[1], n = (int)B->shape[1];
  tiled<<<dim3((n + T - 1) / T, (m + T - 1) / T), dim3(T, T), 0, (cudaStream_t)stream>>>(
      (const __nv_bfloat16*)A->data, (const __nv_bfloat16*)B->data, (float*)C->data, m, n, k);
  return cudaGetLastError() != cudaSuccess;
}

static int cublas(const void* args, void* stream, char* err, size_t len) {
  static cublasHandle_t h; /* made on the first call (the oracle's, outside any timing) */
  if (!h && cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  const tensor_args* t = (const tensor_args*)args;
  const kgate_tensor *A = kgate_tensor_named(t, "a"), *B = kgate_tensor_named(t, "b"), *C = kgate_tensor_named(t, "c");
  const int m = (int)A->shape[0], k = (int)A->shape[1], n = (int)B->shape[1];
  const float one = 1, zero = 0; /* row-major C = A B is column-major C^T = B^T A^T */
  cublasSetStream(h, (cudaStream_t)stream);
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B->data, CUDA_R_16BF, n, A->data, CUDA_R_16BF, k,
                      &zero, C->data, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS;
}

static const char* const kArch[] = {"sm_90a"};
static const char* const kMine[] = {"tiled"};
static const kgate_export_arm_t kArms[] = {
    {"gemm.mine", "16x16 shared-memory tiles", kMine, 1, kArch, 1, NULL, mine},
    {"gemm.cublas", "cublasGemmEx, f32 accumulate: the oracle", NULL, 0, kArch, 1, NULL, cublas},
};
static const kgate_export_table_t kTable = {KGATE_EXPORT_ABI_VERSION, "tensor", kArms, 2};
extern "C" const kgate_export_table_t* kgate_export_table(void) { return &kTable; }
