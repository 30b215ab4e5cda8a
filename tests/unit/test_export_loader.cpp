// The export loader on the CPU (harness/export): each way a library can be wrong is one
// InputError naming the file; a good library's arms are registered with its kernel names and
// archs and call through the table; a run records the library (sha256, path, size) as an arm
// source and a subject, and gate --against-tree's check notices when the file changes.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/core/crypto.hpp"
#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/core/tree_check.hpp"
#include "harness/export/loader.hpp"
#include "harness/run/campaign.hpp"
#include "kernels/ssu/abi.h"
#include "tests/unit/fake_backend.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;
namespace fs = std::filesystem;

namespace {

std::string lib(const std::string& name) { return std::string(KGATE_TEST_EXPORTS_DIR) + "/" + name + ".so"; }

// The InputError load_export_arm throws for `arm`, or "" when it loads.
std::string load_error(const std::string& arm, const std::string& family = "") {
  try {
    load_export_arm(Registry::instance(), arm, family);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The fake backend under the name "cuda": export arms are cuda arms; its contexts call no arm.
class CudaNamedFake final : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  std::string timer() const override { return fake_.timer(); }
  std::string arch() const override { return "sm_90"; }
  json environment() const override { return fake_.environment(); }
  json protocol() const override { return fake_.protocol(); }
  std::unique_ptr<RowContext> prepare(const Family& f, const CaseRow& row, uint64_t seed) override {
    return fake_.prepare(f, row, seed);
  }

 private:
  kgate::testing::FakeBackend fake_;
};

}  // namespace

TEST(ExportLoader, EachBrokenLibraryIsOneLineNamingTheFile) {
  const std::string missing = "/nonexistent/dir/libnothing.so";
  EXPECT_EQ(load_error("export:" + missing + ":fails"), "export library '" + missing + "': no such file");
  const std::string abi = load_error("export:" + lib("export_wrong_abi") + ":fails");
  EXPECT_NE(abi.find(lib("export_wrong_abi")), std::string::npos) << abi;
  EXPECT_NE(abi.find("ABI version 2, expected 1"), std::string::npos) << abi;
  const std::string fam = load_error("export:" + lib("export_wrong_family") + ":fails", "ssu");
  EXPECT_NE(fam.find(lib("export_wrong_family")), std::string::npos) << fam;
  EXPECT_NE(fam.find("family 'sparse_mla', expected 'ssu'"), std::string::npos) << fam;
  // Without an expected family: sparse_mla takes export arms (its GPU context calls them), so
  // the library is judged as a sparse_mla export, not refused for its family.
  EXPECT_EQ(load_error("export:" + lib("export_wrong_family") + ":fails").find("takes no export arms"),
            std::string::npos);
  const std::string sym = load_error("export:" + lib("export_no_symbol") + ":fails");
  EXPECT_NE(sym.find(lib("export_no_symbol")), std::string::npos) << sym;
  EXPECT_NE(sym.find("missing symbol kgate_export_table"), std::string::npos) << sym;
  const fs::path dir = fresh_temp_dir("kgate_export_");
  const std::string garbage = (dir / "garbage.so").string();
  write_file_atomic(garbage, "not an ELF file\n");
  const std::string bad = load_error("export:" + garbage + ":fails");
  EXPECT_EQ(bad.rfind("export library '" + garbage + "': cannot load: ", 0), 0u) << bad;
  fs::remove_all(dir);
  for (const auto& e : {abi, fam, sym, bad}) EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_NE(load_error("export:no-name-here").find("expected export:PATH:NAME"), std::string::npos);
}

TEST(ExportLoader, AnUnknownArmListsTheLibrarysArmsWithASuggestion) {
  const std::string e = load_error("export:" + lib("export_good_ssu") + ":fail");
  EXPECT_EQ(e, "export library '" + lib("export_good_ssu") +
                   "': no arm 'fail' in it (arms: fails, picky); did you mean 'fails'?");
}

TEST(ExportLoader, ArmsGoByThePortableNameAndOneFileNameNamesOneLibrary) {
  EXPECT_EQ(portable_export_name("export:/abs/dir/lib.so:arm"), "export:lib.so:arm");
  EXPECT_EQ(portable_export_name("export:rel/lib.so:arm"), "export:lib.so:arm");
  EXPECT_EQ(portable_export_name("export:lib.so:arm"), "export:lib.so:arm");
  EXPECT_EQ(portable_export_name("ssu.fast"), "ssu.fast");
  Registry& reg = Registry::instance();
  const std::string good = lib("export_good_ssu");
  const Implementation& a = load_export_arm(reg, "export:" + good + ":fails", "ssu");
  EXPECT_EQ(a.name, "export:export_good_ssu.so:fails");
  EXPECT_EQ(&load_export_arm(reg, "export:export_good_ssu.so:fails", "ssu"), &a);  // by its portable name
  const fs::path dir = fresh_temp_dir("kgate_export_same_");
  fs::copy_file(good, dir / "export_good_ssu.so");  // the same bytes by another path: the same arm
  EXPECT_EQ(&load_export_arm(reg, "export:" + (dir / "export_good_ssu.so").string() + ":fails", "ssu"), &a);
  fs::remove(dir / "export_good_ssu.so");  // other bytes under the same file name: refused
  fs::copy_file(lib("export_wrong_family"), dir / "export_good_ssu.so");
  const std::string e = load_error("export:" + (dir / "export_good_ssu.so").string() + ":fails", "ssu");
  EXPECT_NE(e.find("another library named 'export_good_ssu.so' is loaded"), std::string::npos) << e;
  fs::remove_all(dir);
}

TEST(ExportLoader, AGoodLibrarysArmsAreRegisteredAndCallThroughTheTable) {
  const std::string path = lib("export_good_ssu");
  const auto names = load_export_library(Registry::instance(), path, "ssu");
  // Registered by their portable names: the library's file name, never the path it was loaded from.
  ASSERT_EQ(names, (std::vector<std::string>{"export:export_good_ssu.so:fails", "export:export_good_ssu.so:picky"}));
  const Implementation& fails = Registry::instance().impl(names[0]);
  const Implementation& picky = Registry::instance().impl(names[1]);
  EXPECT_EQ(fails.family, "ssu");
  EXPECT_EQ(fails.backend, "cuda");
  EXPECT_EQ(fails.kernel_names, std::vector<std::string>{"test_ssu_fails_kernel"});
  EXPECT_EQ(picky.kernel_names, (std::vector<std::string>{"test_ssu_picky_kernel", "test_ssu_picky_epilogue"}));
  EXPECT_EQ(fails.archs, std::vector<std::string>{"sm_90a"});
  ASSERT_TRUE(fails.library);
  EXPECT_EQ(fails.library->sha256, sha256_file_hex(path));
  EXPECT_EQ(fails.library->size, fs::file_size(path));
  EXPECT_EQ(fails.library->arm, "fails");
  // Loading again (another spelling of the same arm) registers nothing twice.
  EXPECT_EQ(&load_export_arm(Registry::instance(), names[0], "ssu"), &fails);

  ssu_args args{};
  args.batch = 3;
  EXPECT_NO_THROW(export_supports(fails, &args));  // no supports: every case
  try {
    export_launch(fails, &args, nullptr);
    ADD_FAILURE() << "a launch returning 7 must throw";
  } catch (const DeviceError& e) {
    EXPECT_EQ(std::string(e.what()), names[0] + ": launch returned 7: test export: no kernel (batch 3)");
  }
  try {
    export_supports(picky, &args);
    ADD_FAILURE() << "picky supports nothing";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), names[1] + ": test export: supports nothing");
  }
}

// The tree check on a receipt's export library: found by its file name in the folder checked, stale
// once its bytes change, unchecked once it is gone.
void check_library_staleness(const json& body, const fs::path& dir, const std::string& so, const std::string& file,
                             const std::string& sha) {
  auto library_stale = [&] {
    std::string lines;
    for (const auto& s : stale_against_tree(body, dir.string()))
      if (s.line.find(file) != std::string::npos) lines += s.line;
    return lines;
  };
  EXPECT_EQ(library_stale(), "");  // found by its file name in the folder checked
  write_file_atomic(so, read_file(so) + "changed");
  EXPECT_NE(library_stale().find("STALE " + file + ": receipt " + sha.substr(0, 12) + ", tree "), std::string::npos);
  for (const auto& s : stale_against_tree(body, dir.string()))  // changed bytes: stale, not unchecked
    if (s.line.find(file) != std::string::npos) EXPECT_EQ(s.kind, StaleItem::Kind::source) << s.line;
  fs::remove(so);  // absent (a fresh clone): reported, as unchecked, not as stale
  EXPECT_NE(
      library_stale().find("UNCHECKED export library " + file + ": receipt " + sha.substr(0, 12) + ", not present at"),
      std::string::npos);
  for (const auto& s : stale_against_tree(body, dir.string()))
    if (s.line.find(file) != std::string::npos) EXPECT_EQ(s.kind, StaleItem::Kind::unchecked) << s.line;
}

TEST(ExportLoader, ARunRecordsTheLibraryAndTheTreeCheckNoticesItChange) {
  Registry& reg = Registry::instance();
  if (!reg.find_impl("ssu.fake_cuda_ref"))
    reg.add(
        {"ssu.fake_cuda_ref", "ssu", "cuda", "baseline", {"sm_90a"}, {"ssu_fast_kernel"}, {}, "test arm", nullptr, {}});
  const fs::path dir = fresh_temp_dir("kgate_export_run_");
  const std::string so = (dir / "copy_of_good.so").string();  // a copy, so the test may change it
  fs::copy_file(lib("export_good_ssu"), so);
  write_file_atomic((dir / "t.json").string(), kgate::testing::kFakeTable);
  RunConfig cfg;
  cfg.cases_path = (dir / "t.json").string();
  cfg.candidate = "export:" + so + ":fails";
  cfg.baselines = {"ssu.fake_cuda_ref"};
  cfg.out_path = (dir / "r.json").string();
  cfg.policy = Policy::parse("correct");
  cfg.schedule = {2, 2, 2, 1};
  cfg.warmup_min_us = 0;
  cfg.warmup_min_calls = 1;
  cfg.quiet = true;

  // The case table's family is checked: a library of another family is refused with the flag.
  RunConfig wrong = cfg;
  wrong.candidate = "export:" + lib("export_wrong_family") + ":fails";
  try {
    make_plan(wrong, "cuda");
    ADD_FAILURE() << "a sparse_mla library in an ssu run";
  } catch (const InputError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind(
            "--candidate: export library '" + lib("export_wrong_family") + "': family 'sparse_mla', expected 'ssu'", 0),
        0u)
        << e.what();
  }

  CudaNamedFake be;
  run_campaign(cfg, be);
  ASSERT_TRUE(audit_receipt(cfg.out_path, std::nullopt).ok());
  const json body = json::parse(read_file(cfg.out_path))["body"];
  const std::string sha = sha256_file_hex(so);
  // The receipt names the library by its file name (portable), the arm as export:<file>:<arm>.
  const std::string file = "copy_of_good.so", arm_name = "export:copy_of_good.so:fails";
  EXPECT_EQ(read_file(cfg.out_path).find(so), std::string::npos) << "the library's path in the receipt";
  bool subject = false;
  for (const auto& s : body["subject"])
    if (s["name"] == file) {
      subject = true;
      EXPECT_EQ(s["digest"]["sha256"], sha);
      EXPECT_EQ(s["annotations"]["kgate.kind"], "export_library");
      EXPECT_EQ(s["annotations"]["kgate.size"], fs::file_size(so));
    }
  EXPECT_TRUE(subject) << body["subject"].dump();
  const json& arm = body["predicate"]["arms"][0];
  EXPECT_EQ(arm["name"], arm_name);
  EXPECT_EQ(arm["kernel_names"], json::array({"test_ssu_fails_kernel"}));
  EXPECT_EQ(arm["export"], json({{"library", file}, {"arm", "fails"}, {"abi_version", 1}, {"manifest", nullptr}}));
  EXPECT_EQ(arm["sources"].back(),
            json({{"path", file}, {"sha256", sha}, {"size", fs::file_size(so)}, {"kind", "export_library"}}));
  for (const auto& r : body["predicate"]["rows"]) {  // every row names the export arm that ran
    EXPECT_EQ(r["pairs"][0]["candidate"], arm_name) << r.dump();
    EXPECT_EQ(r["correctness"][0]["arm"], arm_name) << r.dump();
  }

  check_library_staleness(body, dir, so, file, sha);
  fs::remove_all(dir);
}
