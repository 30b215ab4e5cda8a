// compare_elements on several threads gives the serial scan's result exactly: counts, maxima,
// and the worst element (first index of the largest excess), with mismatches, NaNs, infinities
// and unwritten elements spread over chunk boundaries.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "harness/core/compare.hpp"

namespace kgate {
namespace {

Correctness run(const std::vector<double>& out, const std::vector<double>& ref, const std::vector<bool>& unw,
                unsigned threads) {
  return compare_elements(
      out.size(), [&](size_t i) { return out[i]; }, [&](size_t i) { return ref[i]; }, [&](size_t i) { return unw[i]; },
      Tolerance{1e-3, 1e-3}, [](size_t i) { return std::to_string(i); }, threads);
}

void expect_same(const Correctness& a, const Correctness& b) {
  EXPECT_EQ(a.passed, b.passed);
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.mismatches, b.mismatches);
  EXPECT_EQ(a.nonfinite, b.nonfinite);
  EXPECT_EQ(a.unwritten, b.unwritten);
  EXPECT_EQ(a.max_abs_err, b.max_abs_err);
  EXPECT_EQ(a.max_rel_err, b.max_rel_err);
  EXPECT_EQ(a.worst, b.worst);
  EXPECT_EQ(a.worst_out, b.worst_out);
  EXPECT_EQ(a.worst_ref, b.worst_ref);
}

TEST(CompareElements, ThreadsGiveTheSerialResult) {
  const size_t n = (size_t{1} << 22) + 12345;  // several 1 Mi chunks, not a multiple of any
  std::mt19937_64 g(7);
  std::normal_distribution<double> d;
  std::vector<double> ref(n), out(n);
  std::vector<bool> unw(n, false);
  for (size_t i = 0; i < n; ++i) {
    ref[i] = d(g);
    out[i] = ref[i] + 1e-5 * d(g);
  }
  Correctness clean1 = run(out, ref, unw, 1), clean8 = run(out, ref, unw, 8);
  EXPECT_TRUE(clean1.passed);
  expect_same(clean1, clean8);
  // Two equal worst excesses in different chunks: the first index must win on every thread count.
  for (size_t i : {size_t{1} << 20, (size_t{1} << 21) + 5}) {
    ref[i] = 1.0;
    out[i] = 1.5;
  }
  for (size_t i : {size_t{17}, (size_t{1} << 22) + 3}) out[i] = ref[i] + 0.01;
  for (size_t i : {size_t{3 << 20}, size_t{(3 << 20) + 1}}) unw[i] = true;
  Correctness bad1 = run(out, ref, unw, 1);
  EXPECT_EQ(bad1.mismatches, 4);
  EXPECT_EQ(bad1.unwritten, 2);
  EXPECT_EQ(bad1.worst, std::to_string(size_t{1} << 20));
  for (unsigned t : {2u, 3u, 5u, 8u}) expect_same(bad1, run(out, ref, unw, t));
  // A NaN later and an infinity earlier: non-finite beats any finite excess; the first one wins.
  out[(size_t{1} << 22) + 100] = NAN;
  out[(size_t{2} << 20) + 9] = INFINITY;
  Correctness nf1 = run(out, ref, unw, 1);
  EXPECT_EQ(nf1.nonfinite, 2);
  EXPECT_EQ(nf1.worst, std::to_string((size_t{2} << 20) + 9));
  EXPECT_FALSE(nf1.passed);
  for (unsigned t : {2u, 4u, 7u}) expect_same(nf1, run(out, ref, unw, t));
  // A non-finite reference matched exactly is not an error.
  std::vector<double> r2 = {1.0, -INFINITY}, o2 = {1.0, -INFINITY};
  std::vector<bool> u2(2, false);
  EXPECT_TRUE(run(o2, r2, u2, 1).passed);
}

TEST(CompareElements, EmptyIsNotAPass) {
  std::vector<double> e;
  std::vector<bool> u;
  Correctness c = run(e, e, u, 4);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.note, "no output elements compared");
}

}  // namespace
}  // namespace kgate
