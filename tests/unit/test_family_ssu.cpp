// The ssu family's contract as the registry holds it, on the CPU backend.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "harness/core/cases.hpp"
#include "harness/core/registry.hpp"
#include "harness/run/backend.hpp"
#include "kernels/ssu/config.hpp"
#include "kernels/ssu/family.hpp"
#ifdef KGATE_HAVE_CUDA
#include "harness/gpu/gpu.hpp"
#endif

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
  static const CpuArm<ssu::CpuFn> wrong{&wrong_values};
  impl.arm = &wrong;
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
  const std::set<std::string> bundled = {"ssu.cpu_scalar", "ssu.cpu_eigen",  "ssu.baseline",    "ssu.fast",
                                         "ssu.floor",      "ssu.floor_copy", "ssu.floor_stream"};
  for (const Implementation& impl : Registry::instance().impls()) {
    if (impl.family != "ssu" || !bundled.count(impl.name)) continue;
    ++seen;
    std::set<std::string> src(impl.sources.begin(), impl.sources.end());
    for (const char* f : {"references/ssu/ssu.hpp", "references/ssu/ssu_ref.cpp", "references/ssu/ssu_check.cpp",
                          "kernels/ssu/family.hpp"})
      EXPECT_TRUE(src.count(f)) << impl.name << " lacks " << f;
    EXPECT_FALSE(src.count("kernels/ssu/family.cpp")) << impl.name << ": family.cpp is prose and registration";
    EXPECT_TRUE(src.count(impl.backend == "cpu" ? "kernels/ssu/cpu_arms.cpp" : "kernels/ssu/launch.cu")) << impl.name;
    if (impl.backend == "cuda") EXPECT_TRUE(src.count("kernels/ssu/abi.h")) << impl.name;
    if (impl.backend == "cpu") EXPECT_EQ(impl.archs, std::vector<std::string>{"host"}) << impl.name;
#ifdef KGATE_HAVE_CUDA
    // The tuned candidate is declared for sm_90a alone; the rest for every architecture built.
    if (impl.backend == "cuda")
      EXPECT_EQ(impl.archs, impl.name == "ssu.fast" ? std::vector<std::string>{"sm_90a"} : kgate::gpu::built_archs())
          << impl.name;
#endif
  }
  EXPECT_GE(seen, 2);
}

TEST(FamilyRegistry, EveryBundledFamilyIsRegisteredOnce) {
  std::multiset<std::string> names;
  for (const Family& f : Registry::instance().families()) names.insert(f.name);
  for (const char* f : {"ssu", "sparse_mla", "ag_gemm", "axpy"}) EXPECT_EQ(names.count(f), 1u) << f;
#ifdef KGATE_HAVE_CUDA
  EXPECT_EQ(names.count("calib"), 1u);
#endif
}

// BF16 state up to kSideTiles tiles runs the side-warp kernel: 2 state warps of NL = 2 up to
// kSideNarrowTiles tiles, 4 of NL = 4 above, one side warp per CTA; its grid covers every row of
// every (batch, head) once. Above kSideTiles the row-owner kernel's NL = 4 range; FP32 state keeps
// the row-owner kernel's NL = 2 range and its wave rule.
TEST(SsuConfig, Bf16RowsUpToTheSideTilesRunTheSideWarpKernel) {
  using namespace kgate::ssu::gpu;
  const auto config = [](int batch, int heads, int groups, bool bf16, int resident = 1 << 20) {
    return fast_config(Problem{batch, heads, groups, bf16, true, false}, resident);
  };
  const LaunchConfig narrow = config(1, 96, 8, true);  // 96 tiles: the bound is inclusive
  EXPECT_EQ(narrow.kernel, "ssu_fast_kernel_side_warp");
  EXPECT_EQ(narrow.mode & kSideWarp, kSideWarp);
  EXPECT_EQ(narrow.threads, 3 * 32);
  EXPECT_EQ(narrow.chunks_per_lane, 2);
  EXPECT_EQ(narrow.grid[0], 96u * 64 / (2 * 4));  // 2 warps x 4 rows per CTA
  const LaunchConfig wide = config(1, 97, 97, true);
  EXPECT_EQ(wide.threads, 5 * 32);
  EXPECT_EQ(wide.chunks_per_lane, 4);
  EXPECT_EQ(wide.grid[0], 97u * 64 / (4 * 8));  // 4 warps x 8 rows per CTA
  EXPECT_NE(wide.rule.find("side warp"), std::string::npos);
  EXPECT_EQ(config(6, 128, 8, true).kernel, "ssu_fast_kernel_side_warp");  // 768 tiles
  const LaunchConfig above = config(7, 128, 8, true);                      // 896 tiles
  EXPECT_EQ(above.kernel, "ssu_fast_kernel");
  EXPECT_EQ(above.mode, kFastModesBf16.mid);
  EXPECT_EQ(above.chunks_per_lane, 4);
  EXPECT_EQ(config(1, 48, 1, false).mode, kFastModesFp32.small);  // FP32: the row-owner kernel
  EXPECT_EQ(config(2, 128, 8, false).chunks_per_lane, 2);
  EXPECT_EQ(config(2, 128, 8, false, 16).mode, kFastModesFp32.small_waves);
  EXPECT_EQ(config(1, 48, 1, false).kernel, "ssu_fast_kernel");
}
