#pragma once
// The GPU reference for ag_gemm and the device input generator. The reference is cuBLAS in fp32
// (cublasSgemm, CUBLAS_PEDANTIC_MATH: fp32 FMAs, no TF32 or reduced-precision paths) over the
// whole gathered A, made afresh from a_value/b_value (ag_gemm.hpp) in fp32, so it shares no
// buffer and no code path with any arm (which read BF16 and run BF16 tensor-core GEMMs), rounded
// to BF16 as reference() rounds. GpuRef.AgGemmMatchesTheCpuReference checks it against the CPU
// reference on small shapes; row contexts use it on rows the CPU reference would take seconds on.
#include <cuda_runtime.h>

#include <cstdint>

#include "references/ag_gemm/ag_gemm.hpp"

namespace kgate::ag_gemm {

// Rank r's shard [m, k] (a_value) or B [k, n] (b_value), written on the device as BF16 or FP16.
void fill_a_device(uint64_t seed, int64_t rank, int64_t elems, bool fp16, void* out, cudaStream_t s);
void fill_b_device(uint64_t seed, int64_t elems, bool fp16, void* out, cudaStream_t s);

// An FP16 output as fp32 (for compare_device, which reads BF16 or FP32), kgate's poison kept as
// the FP32 poison.
void fp16_to_f32_device(const void* in, int64_t n, float* out, cudaStream_t s);

// n 16-bit elements set to kgate's poison (kPoisonBf16: a NaN in BF16 and in FP16).
void poison16_device(void* out, int64_t n, cudaStream_t s);

// ref [w*m, n] on the device: the reference C for problem (p, seed), as doubles.
void reference_device(const Params& p, uint64_t seed, double* ref, cudaStream_t s);

}  // namespace kgate::ag_gemm
