// `gate --against-tree`: stale_against_tree over receipt bodies built here, against a temporary
// tree.
#include "harness/core/tree_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>

#include "harness/core/artifacts.hpp"
#include "harness/core/crypto.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/registry.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;

namespace {

class TreeCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_temp_dir("kgate_tree_check_");
    write("kernels/ssu/launch.cu", "// kernel\n");
    write("references/ssu/reference.cpp", "// oracle\n");
    write("cases/ssu.json", "{}\n");
    write("harness/gpu/timer.cpp", "// timer\n");
    write("harness/gpu/device.cpp", "// device\n");
    write("harness/core/schedule.cpp", "// schedule\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write(const std::string& rel, const std::string& text) {
    std::filesystem::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  json subject(const std::string& name) const {
    std::string digest = std::filesystem::exists(dir_ / name) ? sha256_file_hex((dir_ / name).string()) : "00";
    return {{"name", name}, {"digest", {{"sha256", digest}}}};
  }
  // A body as the campaign writes it, digests taken from the tree as it is now.
  json current_body() const {
    json subjects = json::array({{{"name", "kgate"}, {"digest", {{"sha256", "ab"}}}}});
    for (const char* f : {"cases/ssu.json", "kernels/ssu/launch.cu", "references/ssu/reference.cpp",
                          "harness/gpu/timer.cpp", "harness/gpu/device.cpp", "harness/core/schedule.cpp"})
      subjects.push_back(subject(f));
    subjects.push_back({{"name", "r.samples.json"}, {"digest", {{"sha256", "cd"}}}});
    json pred = {{"protocol", {{"schema_version", kProtocolSchemaVersion}, {"timer", "host"}, {"launch", "direct"}}},
                 {"samples", {{"path", "r.samples.json"}, {"sha256", "cd"}}}};
    return {{"_type", "https://in-toto.io/Statement/v1"}, {"subject", subjects}, {"predicate", pred}};
  }
  std::vector<StaleItem> check(const json& body) const { return stale_against_tree(body, dir_.string()); }

  std::filesystem::path dir_;
};

std::string lines(const std::vector<StaleItem>& items) {
  std::string s;
  for (const auto& i : items) s += i.line + "\n";
  return s;
}

}  // namespace

TEST_F(TreeCheck, ACurrentReceiptPasses) { EXPECT_TRUE(check(current_body()).empty()) << lines(check(current_body())); }

TEST_F(TreeCheck, AnOlderProtocolSchemaVersionIsStale) {
  json b = current_body();
  b["predicate"]["protocol"]["schema_version"] = kProtocolSchemaVersion - 1;
  auto s = check(b);
  ASSERT_EQ(s.size(), 1u) << lines(s);
  EXPECT_EQ(s[0].kind, StaleItem::Kind::protocol);
  EXPECT_EQ(s[0].line, "STALE protocol: schema_version " + std::to_string(kProtocolSchemaVersion - 1) +
                           " in the receipt, tree " + std::to_string(kProtocolSchemaVersion));
}

TEST_F(TreeCheck, AnAbsentOrNonIntegerSchemaVersionIsStale) {
  json b = current_body();
  b["predicate"]["protocol"].erase("schema_version");
  auto s = check(b);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_NE(s[0].line.find("schema_version absent"), std::string::npos) << s[0].line;
  b["predicate"]["protocol"]["schema_version"] = "2";
  s = check(b);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, StaleItem::Kind::protocol);
}

TEST_F(TreeCheck, ACaseTableRecordedByAnAbsolutePathIsStale) {
  // A run outside the source root recorded the table as /abs/.../cases/ssu.json; the old
  // check skipped the name (no kernels/, references/ or cases/ prefix) and missed table edits.
  json b = current_body();
  b["subject"][1] = subject("cases/ssu.json");
  b["subject"][1]["name"] = (dir_ / "cases/ssu.json").string();
  auto s = check(b);
  ASSERT_EQ(s.size(), 1u) << lines(s);
  EXPECT_EQ(s[0].kind, StaleItem::Kind::source);
  EXPECT_NE(s[0].line.find("recorded outside the tree"), std::string::npos) << s[0].line;
  b["subject"][1]["name"] = "../elsewhere/cases/ssu.json";
  EXPECT_EQ(check(b).size(), 1u);
}

TEST_F(TreeCheck, AnEditedOracleSourceIsStale) {
  json b = current_body();
  write("references/ssu/reference.cpp", "// oracle, edited\n");
  auto s = check(b);
  ASSERT_EQ(s.size(), 1u) << lines(s);
  EXPECT_EQ(s[0].line.rfind("STALE references/ssu/reference.cpp: receipt ", 0), 0u) << s[0].line;
}

TEST_F(TreeCheck, AnEditedProtocolSourceAndAMissingFileAreStale) {
  json b = current_body();
  write("harness/gpu/timer.cpp", "// timer, edited\n");
  std::filesystem::remove(dir_ / "harness/core/schedule.cpp");
  auto s = check(b);
  ASSERT_EQ(s.size(), 2u) << lines(s);
  EXPECT_EQ(s[0].line.rfind("STALE harness/gpu/timer.cpp: receipt ", 0), 0u) << s[0].line;
  EXPECT_EQ(s[1].line, "STALE harness/core/schedule.cpp: receipt " +
                           b["subject"][6]["digest"]["sha256"].get<std::string>().substr(0, 12) + ", tree missing");
}

TEST_F(TreeCheck, TheBinaryAndTheSidecarAreNotTreeFiles) {
  json b = current_body();
  b["subject"][0]["digest"]["sha256"] = "ff";  // another build of kgate: not a tree question
  b["subject"].back()["digest"]["sha256"] = "ee";
  EXPECT_TRUE(check(b).empty()) << lines(check(b));
  // Without a samples path every subject but kgate is a tree file.
  b["predicate"].erase("samples");
  auto s = check(b);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].line, "STALE r.samples.json: receipt ee, tree missing");
}

TEST_F(TreeCheck, RecordedNamesCannotBreakTheOneLineFormat) {
  json b = current_body();
  b["subject"].push_back({{"name", "kernels/evil\nPASS everything"}, {"digest", {{"sha256", "00\n"}}}});
  b["subject"].push_back({{"name", std::string(5000, 'a')}, {"digest", {{"sha256", "00"}}}});
  b["subject"].push_back({{"name", 42}});
  auto s = check(b);
  ASSERT_EQ(s.size(), 3u) << lines(s);
  for (const auto& i : s) {
    EXPECT_EQ(i.line.find('\n'), std::string::npos) << i.line;
    EXPECT_LT(i.line.size(), 400u);
  }
  EXPECT_NE(s[0].line.find("kernels/evil\\nPASS everything"), std::string::npos) << s[0].line;
  EXPECT_NE(s[1].line.find("(5000 bytes)"), std::string::npos) << s[1].line;
}

TEST(OneLine, EscapesAndTruncates) {
  EXPECT_EQ(one_line("plain/name.cpp"), "plain/name.cpp");
  EXPECT_EQ(one_line("a\nb\tc\\d\x01\xff"), "a\\nb\\tc\\\\d\\x01\\xff");
  EXPECT_EQ(one_line("abcdef", 3), "abc...(6 bytes)");
  EXPECT_EQ(one_line("abc", 3), "abc");
}

// An arm's receipt goes stale when one of its sources changes, so its sources must be closed under inclusion: every
// tree file a listed file includes is listed too (a header left out, as ws_plan.hpp and model1.cuh once were from
// hand lists, would change the arm without staling its receipts). Sources come from the compiler's dependency output
// of the units that implement the arm (built_arm_sources), so this holds for every unit and header, .cpp and .cu
// included; with hand lists it failed at once (ssu_check.cpp's includes were never listed).
TEST(ArmSources, EveryIncludedTreeFileIsListed) {
  const std::regex inc(R"re(^\s*#\s*include\s*"((kernels|references)/[^"]+)")re");
  size_t checked = 0;
  for (const Implementation& impl : Registry::instance().impls()) {
    if (impl.library || impl.sources.empty()) continue;  // export arms and the fakes of other tests
    const std::set<std::string> listed(impl.sources.begin(), impl.sources.end());
    EXPECT_TRUE(std::is_sorted(impl.sources.begin(), impl.sources.end())) << impl.name;
    for (const std::string& src : impl.sources) {
      std::ifstream in(std::string(KGATE_SOURCE_DIR) + "/" + src);
      ASSERT_TRUE(in.good()) << impl.name << ": listed source " << src << " is not in the tree";
      std::string line;
      std::smatch m;
      while (std::getline(in, line))
        if (std::regex_search(line, m, inc)) {
          ++checked;
          EXPECT_TRUE(listed.count(m[1].str())) << impl.name << ": " << src << " includes " << m[1] << ", not listed";
        }
    }
  }
  // The check saw the bundled arms' kernel and oracle includes: 22 from the CPU arms alone (a build without CUDA, as
  // the ASan build), more with the device arms.
  EXPECT_GE(checked, 20u);
}

namespace {
const Implementation& bundled(const std::string& name) { return Registry::instance().impl(name); }
bool names(const Implementation& impl, const std::string& file) {
  return std::find(impl.sources.begin(), impl.sources.end(), file) != impl.sources.end();
}
}  // namespace

// Each arm names its own units' dependencies and its family's oracle, never family.cpp (registration and prose).
TEST(ArmSources, ComeFromTheUnitsThatImplementTheArm) {
  for (const char* name : {"ssu.cpu_scalar", "ssu.cpu_eigen"}) {
    const Implementation& a = bundled(name);
    for (const char* f : {"kernels/ssu/cpu_arms.cpp", "kernels/ssu/family.hpp", "references/ssu/ssu.hpp",
                          "references/ssu/ssu_ref.cpp", "references/ssu/ssu_check.cpp"})
      EXPECT_TRUE(names(a, f)) << name << " lacks " << f;
    // The harness an arm includes is not its subject: what of it decides a sample is the protocol's.
    for (const auto& f : a.sources)
      EXPECT_TRUE(f.starts_with("kernels/") || f.starts_with("references/")) << name << ": " << f;
    for (const char* f : {"kernels/ssu/family.cpp", "kernels/ssu/launch.cu", "references/ssu/ssu_ref_gpu.cu"})
      EXPECT_FALSE(names(a, f)) << name << " names " << f;
  }
  for (const Implementation& impl : Registry::instance().impls())
    if (!impl.library && !impl.sources.empty())
      EXPECT_FALSE(names(impl, "kernels/" + impl.family + "/family.cpp")) << impl.name;
  EXPECT_TRUE(names(bundled("sparse_mla.cpu_eigen"), "references/sparse_mla/sparse_mla_check.cpp"));
  EXPECT_TRUE(names(bundled("ag_gemm.cpu_eigen"), "references/ag_gemm/ag_gemm_ref.cpp"));
  // Export arms: the family's oracle and the ABI their library was built against (with CUDA, the GPU context too).
  const auto& exp = Registry::instance().family("ssu").export_sources;
  for (const char* f : {"harness/export/kgate_export.h", "references/ssu/ssu_check.cpp"})
    EXPECT_NE(std::find(exp.begin(), exp.end(), f), exp.end()) << f;
#ifdef KGATE_HAVE_CUDA
  // launch.cu includes every kernel header; the warp-specialized kernel's plan and the FP8 layout are among them.
  for (const char* f :
       {"kernels/sparse_mla/launch.cu", "kernels/sparse_mla/gpu_context.cpp", "kernels/sparse_mla/fast.cuh",
        "kernels/sparse_mla/fast_ws.cuh", "kernels/sparse_mla/ws_plan.hpp", "kernels/sparse_mla/model1.cuh",
        "kernels/sparse_mla/wgmma.cuh", "references/sparse_mla/sparse_mla_ref_gpu.cu",
        "references/sparse_mla/sparse_mla.hpp"})
    EXPECT_TRUE(names(bundled("sparse_mla.fast"), f)) << "sparse_mla.fast lacks " << f;
  for (const char* f : {"kernels/ssu/launch.cu", "kernels/ssu/gpu_context.cpp", "kernels/ssu/fast.cuh",
                        "kernels/ssu/floor.cuh", "kernels/ssu/config.hpp", "references/ssu/ssu_ref_gpu.cu"})
    EXPECT_TRUE(names(bundled("ssu.floor"), f)) << "ssu.floor lacks " << f;
  EXPECT_TRUE(names(bundled("calib.spin_longer"), "kernels/calib/config.hpp"));  // its tolerance and supports()
  EXPECT_TRUE(names(bundled("ag_gemm.gather"), "kernels/ag_gemm/config.hpp"));   // its supports()
  // An export arm is run by the family's GPU context, which calls it through the export ABI.
  EXPECT_NE(std::find(exp.begin(), exp.end(), "kernels/ssu/gpu_context.cpp"), exp.end());
#endif
}

TEST(ArmSources, OnlyCompiledUnitsAndNeverFamilyCpp) {
  EXPECT_THROW(built_arm_sources("ssu", "cpu", {"kernels/ssu/family.cpp"}), std::invalid_argument);
  EXPECT_THROW(built_arm_sources("ssu", "cpu", {"kernels/ssu/no_such_unit.cpp"}), std::invalid_argument);
  EXPECT_THROW(built_arm_sources("ssu", "cpu", {"kernels/sparse_mla/cpu_arms.cpp"}), std::invalid_argument);
  // Every file an arm can name has a digest taken at build time.
  for (const Implementation& impl : Registry::instance().impls())
    if (!impl.library)
      for (const auto& f : impl.sources) EXPECT_NO_THROW(built_source_sha256(f)) << impl.name << ": " << f;
}

// The protocol subject is one list (KGATE_PROTOCOL_SOURCES in CMakeLists.txt), by backend.
TEST(ProtocolSources, OneListByBackend) {
  EXPECT_EQ(protocol_sources("cpu"), std::vector<std::string>{"harness/core/schedule.cpp"});
  EXPECT_EQ(protocol_sources("cuda"),
            (std::vector<std::string>{"harness/core/schedule.cpp", "harness/gpu/timer.cpp", "harness/gpu/device.cpp",
                                      "harness/gpu/compare_device.hpp", "harness/gpu/compare_device.cu"}));
  for (const auto& f : protocol_sources("cuda")) EXPECT_EQ(built_source_sha256(f).size(), 64u) << f;
}
