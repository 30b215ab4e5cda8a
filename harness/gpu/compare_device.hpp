#pragma once
// Element-wise comparison on the device: an output (FP32 or BF16, as the kernel wrote it)
// against a double reference, with harness/core/compare.hpp's rules exactly (the same counts,
// maxima, bound |out - ref| <= atol + rtol |ref|, non-finite matched exactly, the worst element
// the first index of the largest excess), for outputs too large to download and scan on the
// host per arm. And a byte comparison of whole tiles, for the "left bit-identical" checks.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>

#include "harness/core/family.hpp"
#include "harness/core/records.hpp"

namespace kgate::gpu {

struct DeviceOutput {
  const void* data = nullptr;  // the output as written
  bool bf16 = false;           // element type: BF16 or FP32
  // Optional row indirection: reference element i is output element
  // rows[i / row_elems] * row_elems + i % row_elems; rows[k] < 0 skips row k (not compared).
  const int32_t* rows = nullptr;  // device pointer, or null (identity)
  int64_t row_elems = 1;
  bool poison = false;  // count elements still holding kgate's poison as unwritten
};

// n reference elements (device doubles). coords names an element by its reference index.
Correctness compare_device(const DeviceOutput& out, const double* ref, int64_t n, const Tolerance& tol,
                           const std::function<std::string(int64_t)>& coords, cudaStream_t s);

// Tiles t = 0 .. tiles - 1 of tile_bytes (a multiple of 4) with want[t] != 0 (a device array,
// or null: every tile): how many differ between a and b, b null meaning every byte equals
// fill. first (optional) gets the first such tile, -1 if none.
int64_t differing_tiles(const void* a, const void* b, unsigned char fill, int64_t tiles, int64_t tile_bytes,
                        const unsigned char* want, int64_t* first, cudaStream_t s);

}  // namespace kgate::gpu
