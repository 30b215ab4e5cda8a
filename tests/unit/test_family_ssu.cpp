// The ssu family's contract as the registry holds it, on the CPU backend.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "harness/core/cases.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "kernels/ssu/config.hpp"
#include "kernels/ssu/family.hpp"

using namespace kgate;

namespace {

CaseRow small_row() {
  CaseTable t = parse_case_table("inline.json", R"({"table": "t", "family": "ssu", "rows": [
    {"id": "r", "params": {"batch": 2, "nheads": 4, "ngroups": 1, "pool_slots": 4, "state_dtype": "fp32",
                           "io_dtype": "fp32", "has_z": true}}]})");
  return t.rows[0];
}

// A correct arm, then every output element off by one.
void wrong_values(const ssu::HostProblem& hp, std::vector<float>& state, std::vector<float>& out) {
  ssu::cpu_scalar(hp, state, out);
  for (float& v : out) v += 1.f;
}

Implementation arm_with_role(const std::string& role) {
  Implementation impl = Registry::instance().impl("ssu.cpu_scalar");
  impl.name = "ssu.test_" + role;
  impl.role = role;
  impl.launch = reinterpret_cast<void*>(&wrong_values);
  return impl;
}

}  // namespace

TEST(FamilySsu, EveryRoleButFloorIsCheckedAgainstTheOracle) {
  const Family& fam = Registry::instance().family("ssu");
  auto ctx = fam.make_cpu_context(small_row(), 7);
  EXPECT_TRUE(ctx->check(Registry::instance().impl("ssu.cpu_scalar")).passed);
  // No role is a way around the oracle: "diagnostic" (the bypass removed from the GPU context),
  // and any other role an arm could declare.
  for (const char* role : {"diagnostic", "candidate", "baseline", "reference", "negative_control"}) {
    Correctness c = ctx->check(arm_with_role(role));
    EXPECT_FALSE(c.passed) << role << ": " << c.note;
    EXPECT_GT(c.mismatches, 0) << role;
  }
}

TEST(FamilySsu, FloorRoleMustLeaveThePoolBitIdentical) {
  // The floor check is the bit-identical pool, not the oracle: an arm that updates the state
  // fails it, whatever its out.
  auto ctx = Registry::instance().family("ssu").make_cpu_context(small_row(), 7);
  Correctness c = ctx->check(arm_with_role("floor"));
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.note.find("floor arm"), std::string::npos) << c.note;
}

TEST(FamilySsu, ArmsNameTheirOracleAndOwnSourcesAndArchs) {
  int seen = 0;
  // The family's own arms (`kgate list`); other tests of this process register fakes and
  // export arms in the same registry, which name other sources.
  const std::set<std::string> bundled = {"ssu.cpu_scalar", "ssu.cpu_eigen", "ssu.baseline", "ssu.fast",
                                         "ssu.floor", "ssu.floor_copy", "ssu.floor_stream"};
  for (const Implementation& impl : Registry::instance().impls()) {
    if (impl.family != "ssu" || !bundled.count(impl.name)) continue;
    ++seen;
    std::set<std::string> src(impl.sources.begin(), impl.sources.end());
    for (const char* f : {"references/ssu/ssu.hpp", "references/ssu/ssu_ref.cpp", "references/ssu/ssu_check.cpp",
                          "kernels/ssu/abi.h", "kernels/ssu/family.cpp"})
      EXPECT_TRUE(src.count(f)) << impl.name << " lacks " << f;
    EXPECT_TRUE(src.count(impl.backend == "cpu" ? "kernels/ssu/cpu_arms.cpp" : "kernels/ssu/launch.cu")) << impl.name;
    EXPECT_EQ(impl.archs, std::vector<std::string>{impl.backend == "cpu" ? "host" : "sm_90a"}) << impl.name;
  }
  EXPECT_GE(seen, 2);
}

TEST(FamilyRegistry, EveryBundledFamilyIsRegisteredOnce) {
  std::multiset<std::string> names;
  for (const Family& f : Registry::instance().families()) names.insert(f.name);
  for (const char* f : {"ssu", "sparse_mla", "ag_gemm"}) EXPECT_EQ(names.count(f), 1u) << f;
#ifdef KGATE_HAVE_CUDA
  EXPECT_EQ(names.count("calib"), 1u);
#endif
}

// The NL = 2 range's routing: BF16 rows above kSmallWideTiles tiles issue their side inputs first;
// FP32 rows and smaller BF16 rows keep the copy-first mode; past one resident wave the wave rule wins.
TEST(SsuConfig, TheSmallRangeRoutesWideBf16RowsToSideInputsFirst) {
  using namespace kgate::ssu::gpu;
  const auto mode = [](int batch, int heads, bool bf16, int resident) {
    return fast_config(Problem{batch, heads, 8, bf16, true, false}, resident).mode;
  };
  ASSERT_NE(kFastModesBf16.small_wide, kFastModesBf16.small);
  EXPECT_EQ(mode(1, 128, true, 1 << 20), kFastModesBf16.small);       // 128 tiles
  EXPECT_EQ(mode(3, 64, true, 1 << 20), kFastModesBf16.small);        // 192 tiles: the bound is exclusive
  EXPECT_EQ(mode(2, 128, true, 1 << 20), kFastModesBf16.small_wide);  // 256 tiles
  EXPECT_EQ(mode(4, 64, true, 1 << 20), kFastModesBf16.small_wide);
  EXPECT_EQ(mode(2, 128, false, 1 << 20), kFastModesFp32.small);
  EXPECT_EQ(mode(2, 128, true, 16), kFastModesBf16.small_waves);
  EXPECT_EQ(fast_config(Problem{2, 128, 8, true, true, false}, 1 << 20).chunks_per_lane, 2);
}
