#pragma once
// Counterbalanced paired schedule. A campaign is G groups; within a group every row is one
// "unit" (rows permuted per group from the run seed). In a unit, each (baseline, candidate)
// pair runs `blocks` blocks, half ABBA and half BAAB (A = baseline, B = candidate), each
// letter being m consecutive samples. Deterministic for a given seed.
#include <cstdint>
#include <string>
#include <vector>

namespace kgate {

struct ScheduleConfig {
  int groups = 3;
  int blocks = 6;  // per pair per unit; even, so ABBA and BAAB counts are equal (6: the interval has 18 blocks)
  int m = 2;       // samples per letter
  uint64_t seed = 1;
  void validate() const;  // throws InputError naming the flag
};

struct Unit {
  int group;
  size_t row;  // index into the case table
};

uint64_t splitmix64(uint64_t& state);
// Fisher-Yates with a splitmix64 stream: identical on every platform and standard library.
std::vector<size_t> seeded_permutation(size_t n, uint64_t seed);
std::vector<Unit> plan_units(size_t n_rows, const ScheduleConfig& cfg);
// 'A'/'B' per letter slot of one pair in one unit; blocks alternate ABBA/BAAB with the
// starting pattern chosen from (seed, group, row) so neither letter is always first.
std::string block_letters(const ScheduleConfig& cfg, int group, size_t row);

}  // namespace kgate
