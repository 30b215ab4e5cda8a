#pragma once
// The ag_gemm GPU arms (launch.cpp): NCCL, the copy engine and cuBLAS, no kernels of our own.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <vector>

#include "harness/gpu/arm.hpp"
#include "kernels/ag_gemm/abi.h"
#include "kernels/ag_gemm/config.hpp"

namespace kgate::ag_gemm::gpu {

// A rank's launch resources, made once per row context on its device: the cuBLAS handle, the
// stream the shards move on, and one event per shard (its arrival).
class Resources {
 public:
  explicit Resources(int world_size);
  ~Resources();
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;
  cublasHandle_t blas() const { return blas_; }
  cudaStream_t copy() const { return copy_; }
  cudaEvent_t fork() const { return fork_; }
  cudaEvent_t arrived(int step) const { return arrived_.at(static_cast<size_t>(step)); }

 private:
  cublasHandle_t blas_ = nullptr;
  cudaStream_t copy_ = nullptr;
  cudaEvent_t fork_ = nullptr;
  std::vector<cudaEvent_t> arrived_;
};

// What an arm writes: C (checked against the oracle), or only the gathered A (the gather arm).
enum class Writes { C, Gathered };

struct ArmTraits {
  Writes writes = Writes::C;
  bool reads_gathered = false;  // the floor: its A is a_gathered as given (the context fills it first)
};
// A launch takes the rank's Resources besides the args.
using Arm = kgate::GpuArm<ag_gemm_args, json, Resources, ArmTraits>;

// Shape and pointer checks every launcher makes first (InputError naming `arm`).
void validate(const ag_gemm_args& a, const char* arm);

extern const Arm kBaselineArm, kOverlapArm, kFloorArm, kGatherArm;

}  // namespace kgate::ag_gemm::gpu
