#include "harness/core/schedule.hpp"

#include "harness/core/errors.hpp"

namespace kgate {

void ScheduleConfig::validate() const {
  if (groups < 1) throw InputError("--groups: must be >= 1 (got " + std::to_string(groups) + ")");
  if (blocks < 2 || blocks % 2)
    throw InputError("--blocks: must be even and >= 2 (equal ABBA and BAAB), got " + std::to_string(blocks));
  if (m < 1) throw InputError("--m: samples per letter must be >= 1 (got " + std::to_string(m) + ")");
  // Receipts are I-JSON: integers above 2^53 would not survive a round trip through a double.
  if (seed > (uint64_t{1} << 53)) throw InputError("--seed: must be <= 2^53 (receipts record it as a JSON number)");
}

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<size_t> seeded_permutation(size_t n, uint64_t seed) {
  std::vector<size_t> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = i;
  uint64_t s = seed;
  for (size_t i = n; i > 1; --i) {
    // Rejection sampling: an unbiased index in [0, i).
    uint64_t bound = i, limit = UINT64_MAX - UINT64_MAX % bound, r;
    do r = splitmix64(s);
    while (r >= limit);
    std::swap(p[i - 1], p[r % bound]);
  }
  return p;
}

std::vector<Unit> plan_units(size_t n_rows, const ScheduleConfig& cfg) {
  cfg.validate();
  std::vector<Unit> units;
  units.reserve(n_rows * cfg.groups);
  for (int g = 0; g < cfg.groups; ++g) {
    auto perm = seeded_permutation(n_rows, cfg.seed * 1000003ull + static_cast<uint64_t>(g));
    for (size_t r : perm) units.push_back({g, r});
  }
  return units;
}

std::string block_letters(const ScheduleConfig& cfg, int group, size_t row) {
  uint64_t s = cfg.seed ^ (static_cast<uint64_t>(group) << 32) ^ row;
  bool abba_first = splitmix64(s) & 1;
  std::string out;
  for (int b = 0; b < cfg.blocks; ++b) {
    bool abba = (b % 2 == 0) == abba_first;
    const char* pat = abba ? "ABBA" : "BAAB";
    for (int l = 0; l < 4; ++l) out.append(static_cast<size_t>(cfg.m), pat[l]);
  }
  return out;
}

}  // namespace kgate
