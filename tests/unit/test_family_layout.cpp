// Every kernels/<family>/ folder has the common file set (kernels/README.md) and nothing else
// that compiles; the template family is among them and is registered.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "harness/core/arm.hpp"
#include "harness/core/registry.hpp"
#include "kernels/axpy/family.hpp"
#include "kernels/ssu/family.hpp"
#include "tests/unit/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kEvery = {"CMakeLists.txt", "NOTES.md",   "abi.h",   "config.hpp",
                                      "family.hpp",     "family.cpp", "arms.hpp"};
const std::set<std::string> kGpu = {"launch.hpp", "gpu_context.cpp"};

// A family of export arms only (kernels/README.md): no arm table, a context per backend it runs.
std::string exports_only_problem(const std::set<std::string>& files) {
  static const std::set<std::string> kUnits = {"family.cpp", "config.cpp", "cpu_context.cpp", "gpu_context.cpp"};
  for (const auto& f : kEvery)
    if (f != "arms.hpp" && !files.count(f)) return "no " + f;
  for (const auto& f : files) {
    const std::string ext = fs::path(f).extension().string();
    if ((ext == ".cpp" || ext == ".cu") && !kUnits.count(f)) return f + " is not in an exports-only family's set";
  }
  return "";
}

// What is wrong with the folder's file set; "" when it has the common shape.
std::string layout_problem(const fs::path& dir) {
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) files.insert(e.path().filename().string());
  if (!files.count("arms.hpp") && (files.count("cpu_context.cpp") || files.count("gpu_context.cpp")))
    return exports_only_problem(files);
  for (const auto& f : kEvery)
    if (!files.count(f)) return "no " + f;
  const bool cpu = files.count("cpu_arms.cpp") > 0;
  const bool gpu = files.count("gpu_context.cpp") || files.count("launch.hpp") || files.count("launch.cu") ||
                   files.count("launch.cpp");
  if (!cpu && !gpu) return "neither cpu_arms.cpp nor GPU arms (launch.hpp, launch.cu, gpu_context.cpp)";
  if (gpu) {
    for (const auto& f : kGpu)
      if (!files.count(f)) return "GPU arms without " + f;
    if (files.count("launch.cu") == files.count("launch.cpp")) return "GPU arms need one of launch.cu, launch.cpp";
  }
  for (const auto& f : files) {
    const std::string ext = fs::path(f).extension().string();
    const bool unit = ext == ".cpp" || ext == ".cu";
    if (unit && !kEvery.count(f) && !kGpu.count(f) && f != "cpu_arms.cpp" && f != "launch.cu" && f != "launch.cpp" &&
        f != "export.cpp")
      return f + " is not in the common set";
  }
  return "";
}

}  // namespace

TEST(FamilyLayout, EveryFamilyFolderHasTheCommonFileSet) {
  int families = 0;
  for (const auto& e : fs::directory_iterator(fs::path(KGATE_SOURCE_DIR) / "kernels")) {
    if (!e.is_directory()) continue;
    ++families;
    EXPECT_EQ(layout_problem(e.path()), "") << e.path();
  }
  EXPECT_GE(families, 5);
}

TEST(FamilyLayout, AFolderMissingAFileOrHoldingAStrayUnitIsRefused) {
  const fs::path dir = fresh_temp_dir("kgate_layout_") / "axpy";
  fs::copy(fs::path(KGATE_SOURCE_DIR) / "kernels" / "axpy", dir);
  EXPECT_EQ(layout_problem(dir), "");
  fs::remove(dir / "arms.hpp");
  EXPECT_EQ(layout_problem(dir), "no arms.hpp");
  fs::copy_file(fs::path(KGATE_SOURCE_DIR) / "kernels" / "axpy" / "arms.hpp", dir / "arms.hpp");
  std::ofstream(dir / "launch.cu") << "\n";
  EXPECT_EQ(layout_problem(dir), "GPU arms without gpu_context.cpp");
  fs::remove(dir / "launch.cu");
  std::ofstream(dir / "helpers.cpp") << "\n";
  EXPECT_EQ(layout_problem(dir), "helpers.cpp is not in the common set");
  fs::remove_all(dir.parent_path());
}

TEST(FamilyLayout, AnExportsOnlyFamilyHoldsItsContextsAndNoStrayUnit) {
  const fs::path dir = fresh_temp_dir("kgate_layout_") / "tensor";
  fs::copy(fs::path(KGATE_SOURCE_DIR) / "kernels" / "tensor", dir);
  EXPECT_EQ(layout_problem(dir), "");
  fs::remove(dir / "abi.h");
  EXPECT_EQ(layout_problem(dir), "no abi.h");
  fs::copy_file(fs::path(KGATE_SOURCE_DIR) / "kernels" / "tensor" / "abi.h", dir / "abi.h");
  std::ofstream(dir / "launch.cu") << "\n";
  EXPECT_EQ(layout_problem(dir), "launch.cu is not in an exports-only family's set");
  fs::remove_all(dir.parent_path());
}

TEST(FamilyLayout, TheTemplateFamilyIsRegistered) {
  const kgate::Registry& r = kgate::Registry::instance();
  ASSERT_NE(r.find_family("axpy"), nullptr);
  for (const char* arm : {"axpy.cpu_scalar", "axpy.cpu_eigen"}) {
    const kgate::Implementation* i = r.find_impl(arm);
    ASSERT_NE(i, nullptr) << arm;
    EXPECT_EQ(i->backend, "cpu");
    EXPECT_TRUE(i->kernel_names.empty());
  }
}

// Every bundled device arm names the kernels its launch issues (the parity and fallback gates
// judge an arm by them); CPU arms launch none.
TEST(FamilyLayout, EveryBundledGpuArmDeclaresItsKernels) {
  for (const kgate::Implementation& i : kgate::Registry::instance().impls()) {
    if (i.exported) continue;
    if (i.backend == "cuda") EXPECT_FALSE(i.kernel_names.empty()) << i.name;
    if (i.backend == "cpu") EXPECT_TRUE(i.kernel_names.empty()) << i.name;
  }
}

TEST(FamilyLayout, AContextReadsAnArmOnlyAsItsOwnType) {
  const kgate::Implementation& ssu = kgate::Registry::instance().impl("ssu.cpu_scalar");
  EXPECT_EQ(kgate::arm_of<kgate::CpuArm<kgate::ssu::CpuFn>>(ssu).call, &kgate::ssu::cpu_scalar);
  EXPECT_THROW(kgate::arm_of<kgate::CpuArm<kgate::axpy::CpuFn>>(ssu), std::logic_error);
  kgate::Implementation none = ssu;  // as an export arm: no typed arm
  none.arm.reset();
  EXPECT_THROW(kgate::arm_of<kgate::CpuArm<kgate::ssu::CpuFn>>(none), std::logic_error);
}
