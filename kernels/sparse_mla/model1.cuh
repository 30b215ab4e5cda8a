#pragma once
// FP8 KV rows in FlashMLA's paged "MODEL1" arrangement (abi.h): a page block of pb rows holds every row's 576 data
// bytes (448 e4m3, then 64 BF16 RoPE values), then every row's 8 scale bytes (7 ue8m0 and a pad): 584 B a row.
// One place for the arithmetic every arm's FP8 path uses.
#include <cuda_runtime.h>

#include <cstdint>

namespace kgate::sparse_mla::gpu {

constexpr int kModel1Data = 576, kModel1Row = 584;

struct Model1Row {
  const unsigned char* data;    // 576 B: the e4m3 part, then the RoPE part
  const unsigned char* scales;  // 8 B
};
// Row r of table tab (page blocks of pb rows). r is an int32 index (>= 0), so 32-bit unsigned division serves; the
// byte offsets are 64-bit (a page block of more than 7.4 M rows would overflow 32 bits).
__device__ __forceinline__ Model1Row model1_row(const void* tab, uint32_t r, uint32_t pb) {
  const uint32_t blk = r / pb, in = r - blk * pb;
  const unsigned char* b =
      static_cast<const unsigned char*>(tab) + static_cast<unsigned long long>(blk) * pb * kModel1Row;
  return {b + static_cast<unsigned long long>(in) * kModel1Data,
          b + static_cast<unsigned long long>(pb) * kModel1Data + static_cast<unsigned long long>(in) * 8};
}

}  // namespace kgate::sparse_mla::gpu
