// `gate --against-tree`: stale_against_tree over receipt bodies built here, against a temporary
// tree.
#include "harness/core/tree_check.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

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
    json pred = {{"protocol", {{"schema_version", kProtocolSchemaVersion}, {"timer", "host"}}},
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

TEST_F(TreeCheck, ACurrentReceiptPasses) {
  EXPECT_TRUE(check(current_body()).empty()) << lines(check(current_body()));
}

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
  EXPECT_EQ(s[1].line, "STALE harness/core/schedule.cpp: receipt " + b["subject"][6]["digest"]["sha256"].get<std::string>().substr(0, 12) +
                           ", tree missing");
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

// An arm's receipt goes stale when one of its listed sources changes, so every kernel or reference file a listed
// header includes must be listed too (a header left out would change the arm without staling its receipts). Only
// headers: a family's launch and registration units include every arm's kernel header, each arm lists its own.
TEST(ArmSources, EveryIncludedKernelOrReferenceFileIsListed) {
  const std::regex inc(R"re(^\s*#\s*include\s*"((kernels|references)/[^"]+)")re");
  size_t checked = 0;
  for (const Implementation& impl : Registry::instance().impls()) {
    const std::set<std::string> listed(impl.sources.begin(), impl.sources.end());
    for (const std::string& src : impl.sources) {
      const std::string ext = src.substr(src.find_last_of('.') + 1);
      if (ext != "h" && ext != "hpp" && ext != "cuh") continue;
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
  // The check saw the bundled arms' kernel headers: 10 includes from the CPU arms alone (a build without CUDA, as the
  // ASan build), more with the device arms.
  EXPECT_GE(checked, 10u);
}
