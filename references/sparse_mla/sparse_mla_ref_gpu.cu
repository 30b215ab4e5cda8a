// sparse_mla's GPU reference (sparse_mla_ref_gpu.hpp). Per token t: K_t [W, 512] fp32 (inactive
// or invalid columns zero and masked), S_t = Q_t K_t^T [H, W] (cuBLAS SGEMM, strided batched over
// tokens), then per (t, h) in fp64: s = S * sm_scale over the unmasked columns, lse = log sum exp,
// P = exp(s - lse) (fp32 for the GEMM), O_t = P_t K_t [H, 512] (SGEMM), out = O * sink scale
// rounded to BF16. The scores' GEMM is fp32 (the issue's "fp32 cuBLAS GEMMs"); the softmax is fp64.
#include "references/sparse_mla/sparse_mla_ref_gpu.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cmath>

#include "harness/gpu/check.hpp"
#include "harness/gpu/device.hpp"

namespace kgate::sparse_mla {
namespace {

struct Shape {
  long long T, H, W, pb, lens_offset;
  bool fp8;
  double sm_scale;
};

__device__ float bf16_at(const void* p, long long i) {
  return __uint_as_float(static_cast<unsigned>(static_cast<const unsigned short*>(p)[i]) << 16);
}
__device__ float e4m3(unsigned char v) {  // e4m3fn: 1-4-3, bias 7, no infinities, 0x7f/0xff NaN
  const int s = v >> 7, e = (v >> 3) & 15, m = v & 7;
  if (e == 15 && m == 7) return __int_as_float(0x7fc00000);
  const float mag = e == 0 ? ldexpf(static_cast<float>(m), -9) : ldexpf(1.f + m / 8.f, e - 7);
  return s ? -mag : mag;
}

// K[t, c, i] for i in 0..511: the dequantized row of column c of token t, or 0 (mask[t, c] = 0).
__global__ void gather_kernel(Shape sh, DeviceInputs in, float* K, unsigned char* mask) {
  const long long tc = blockIdx.x;  // (t, c)
  const long long t = tc / sh.W, c = tc % sh.W;
  long long active = static_cast<long long>(in.lens[t]) + sh.lens_offset;
  active = active < 0 ? 0 : (active > sh.W ? sh.W : active);
  const int32_t r = in.indices[tc];
  const bool use = c < active && r >= 0;
  if (threadIdx.x == 0) mask[tc] = use;
  float* dst = K + tc * 512;
  const unsigned char* tab = static_cast<const unsigned char*>(c < 128 ? in.swa : in.compressed);
  for (int i = threadIdx.x; i < 512; i += blockDim.x) {
    float v = 0.f;
    if (use) {
      if (!sh.fp8) {
        v = bf16_at(tab, static_cast<long long>(r) * 512 + i);
      } else {
        const long long blk = r / sh.pb, off = r % sh.pb;
        const unsigned char* data = tab + blk * sh.pb * 584 + off * 576;
        const unsigned char* scales = tab + blk * sh.pb * 584 + sh.pb * 576 + off * 8;
        v = i < 448 ? e4m3(data[i]) * ldexpf(1.f, static_cast<int>(scales[i / 64]) - 127)
                    : __uint_as_float(
                          static_cast<unsigned>(data[448 + 2 * (i - 448)] | (data[449 + 2 * (i - 448)] << 8)) << 16);
      }
    }
    dst[i] = v;
  }
}

__global__ void q_kernel(long long n, const void* q, float* Q) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    Q[i] = bf16_at(q, i);
}

// One thread per (t, h): softmax over the token's unmasked columns in fp64; P in fp32 for the GEMM.
__global__ void softmax_kernel(Shape sh, const float* S, const unsigned char* mask, float* P, double* lse_out,
                               double* scale_out, const float* sink) {
  const long long th = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (th >= sh.T * sh.H) return;
  const long long t = th / sh.H, h = th % sh.H;
  const float* s = S + th * sh.W;
  const unsigned char* m = mask + t * sh.W;
  double mx = -INFINITY;
  for (long long c = 0; c < sh.W; ++c)
    if (m[c]) mx = fmax(mx, static_cast<double>(s[c]) * sh.sm_scale);
  float* p = P + th * sh.W;
  if (mx == -INFINITY) {  // no active valid column: out = 0, lse = -inf
    for (long long c = 0; c < sh.W; ++c) p[c] = 0.f;
    lse_out[th] = -INFINITY;
    scale_out[th] = 0;
    return;
  }
  double sum = 0;
  for (long long c = 0; c < sh.W; ++c)
    if (m[c]) sum += exp(static_cast<double>(s[c]) * sh.sm_scale - mx);
  const double lse = mx + log(sum);
  for (long long c = 0; c < sh.W; ++c)
    p[c] = m[c] ? static_cast<float>(exp(static_cast<double>(s[c]) * sh.sm_scale - lse)) : 0.f;
  lse_out[th] = lse;
  scale_out[th] = sink ? 1.0 / (1.0 + exp(static_cast<double>(sink[h]) - lse)) : 1.0;
}

__global__ void out_kernel(long long n, const float* O, const double* scale, double* out) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    out[i] = static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(O[i] * scale[i / 512]))));
}

class Cublas {
 public:
  Cublas() {
    KGATE_CUBLAS(cublasCreate(&h_));
    KGATE_CUBLAS(cublasSetMathMode(h_, CUBLAS_PEDANTIC_MATH));  // fp32 throughout: no TF32
  }
  ~Cublas() { KGATE_CUBLAS_NOEXCEPT(cublasDestroy(h_)); }
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace

void reference_device(const HostProblem& hp, const DeviceInputs& in, double* ref_out, double* ref_lse, cudaStream_t s) {
  const Params& p = hp.p;
  const Shape sh{p.tokens(), p.heads, p.width(), p.page_block, p.lens_offset, p.fp8, hp.sm_scale};
  using kgate::gpu::DeviceBuffer;
  DeviceBuffer K(static_cast<size_t>(sh.T * sh.W * 512) * 4), mask(static_cast<size_t>(sh.T * sh.W)),
      Q(static_cast<size_t>(sh.T * sh.H * 512) * 4), S(static_cast<size_t>(sh.T * sh.H * sh.W) * 4),
      P(static_cast<size_t>(sh.T * sh.H * sh.W) * 4), O(static_cast<size_t>(sh.T * sh.H * 512) * 4),
      scale(static_cast<size_t>(sh.T * sh.H) * 8);
  gather_kernel<<<static_cast<unsigned>(sh.T * sh.W), 128, 0, s>>>(sh, in, K.as<float>(), mask.as<unsigned char>());
  KGATE_CUDA(cudaGetLastError());
  q_kernel<<<1024, 256, 0, s>>>(sh.T * sh.H * 512, in.q, Q.as<float>());
  KGATE_CUDA(cudaGetLastError());
  Cublas cublas;  // per call: the oracle runs once per row
  KGATE_CUBLAS(cublasSetStream(cublas.get(), s));
  const float one = 1.f, zero = 0.f;
  // Column-major view: S_t^T [W, H] = K_t [W, 512] (as 512 x W column-major, transposed) x Q_t^T
  // [512, H]; row-major S_t [H, W] is that matrix.
  KGATE_CUBLAS(cublasSgemmStridedBatched(cublas.get(), CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(sh.W),
                                         static_cast<int>(sh.H), 512, &one, K.as<float>(), 512, sh.W * 512,
                                         Q.as<float>(), 512, sh.H * 512, &zero, S.as<float>(), static_cast<int>(sh.W),
                                         sh.H * sh.W, static_cast<int>(sh.T)));
  softmax_kernel<<<static_cast<unsigned>((sh.T * sh.H + 127) / 128), 128, 0, s>>>(
      sh, S.as<float>(), mask.as<unsigned char>(), P.as<float>(), ref_lse, scale.as<double>(), in.sink);
  KGATE_CUDA(cudaGetLastError());
  // O_t^T [512, H] = K_t^T (512 x W column-major) x P_t^T [W, H]; row-major O_t [H, 512].
  KGATE_CUBLAS(cublasSgemmStridedBatched(cublas.get(), CUBLAS_OP_N, CUBLAS_OP_N, 512, static_cast<int>(sh.H),
                                         static_cast<int>(sh.W), &one, K.as<float>(), 512, sh.W * 512, P.as<float>(),
                                         static_cast<int>(sh.W), sh.H * sh.W, &zero, O.as<float>(), 512, sh.H * 512,
                                         static_cast<int>(sh.T)));
  out_kernel<<<1024, 256, 0, s>>>(sh.T * sh.H * 512, O.as<float>(), scale.as<double>(), ref_out);
  KGATE_CUDA(cudaGetLastError());
  KGATE_CUDA(cudaStreamSynchronize(s));  // the scratch buffers are freed on return
}

}  // namespace kgate::sparse_mla
