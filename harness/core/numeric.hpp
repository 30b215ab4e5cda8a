#pragma once
// Number formats and seeded data, shared by references, CPU arms and GPU contexts. The BF16
// conversions and the seeded stream are also device functions under nvcc (KGATE_HD), so a GPU
// generator produces exactly the host's values.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#ifdef __CUDACC__
#define KGATE_HD __host__ __device__
#else
#define KGATE_HD
#endif

namespace kgate {

KGATE_HD inline uint16_t f32_to_bf16_bits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // NaN stays NaN
  u += 0x7fffu + ((u >> 16) & 1u);                                                      // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}
KGATE_HD inline float bf16_bits_to_f32(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
KGATE_HD inline float round_bf16(float f) { return bf16_bits_to_f32(f32_to_bf16_bits(f)); }

// OCP FP8 E4M3 (no infinities; 0x7f/0xff are NaN; max 448).
inline float fp8_e4m3_to_f32(uint8_t v) {
  int s = v >> 7, e = (v >> 3) & 15, m = v & 7;
  float r;
  if (e == 15 && m == 7) return NAN;
  if (e == 0)
    r = std::ldexp(static_cast<float>(m), -9);  // subnormal: m/8 * 2^-6
  else
    r = std::ldexp(1.0f + static_cast<float>(m) / 8.0f, e - 7);
  return s ? -r : r;
}
// Round to nearest even, saturating at +-448 (NaN -> 0). The finite non-negative codes
// 0x00..0x7e are ascending in value, so a binary search over their values finds the nearest;
// ties go to the even code.
inline uint8_t f32_to_fp8_e4m3(float f) {
  static const auto values = [] {
    std::array<float, 0x7f> v{};
    for (int c = 0; c < 0x7f; ++c) v[c] = fp8_e4m3_to_f32(static_cast<uint8_t>(c));
    return v;
  }();
  const uint8_t sign = f < 0 ? 0x80 : 0;
  const float a = std::fabs(f);
  if (std::isnan(a)) return sign;
  const int hi = static_cast<int>(std::lower_bound(values.begin(), values.end(), a) - values.begin());
  if (hi == 0) return sign;
  if (hi == 0x7f) return static_cast<uint8_t>(0x7e | sign);
  const float dl = a - values[hi - 1], dh = values[hi] - a;
  const int c = dl < dh ? hi - 1 : dh < dl ? hi : ((hi - 1) % 2 == 0 ? hi - 1 : hi);
  return static_cast<uint8_t>(c | sign);
}

// Poison written into every output before a call: a NaN with a payload no arithmetic makes.
// Representable in BF16 (0x7fde) and FP32 (0x7fde0000), so "never written" is detectable.
inline constexpr uint16_t kPoisonBf16 = 0x7fde;
inline constexpr uint32_t kPoisonF32 = 0x7fde0000u;
inline bool is_poison_f32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u == kPoisonF32;
}
inline float poison_f32() {
  float f;
  uint32_t u = kPoisonF32;
  std::memcpy(&f, &u, 4);
  return f;
}

// Seeded, platform-independent random numbers (splitmix64 stream).
// splitmix64: the k-th output (k = 1, 2, ...) of a stream seeded with s is splitmix_mix(s + k * kGolden),
// so any element of a stream can be computed on its own (the GPU pool generator does).
inline constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
KGATE_HD inline uint64_t splitmix_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
KGATE_HD inline double unit_of(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }  // [0, 1)
KGATE_HD inline float uniform_of(uint64_t bits, float lo, float hi) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(lo, __fmul_rn(static_cast<float>(unit_of(bits)), hi - lo));  // no contraction: the host's value
#else
  return lo + static_cast<float>(unit_of(bits)) * (hi - lo);
#endif
}

class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() { return splitmix_mix(s_ += kGolden); }
  double uniform() { return unit_of(next()); }
  float uniform(float lo, float hi) { return uniform_of(next(), lo, hi); }
  float normal() {
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return static_cast<float>(std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  uint64_t below(uint64_t n) { return next() % n; }

 private:
  uint64_t s_;
};

}  // namespace kgate
