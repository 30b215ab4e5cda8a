#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <filesystem>

#include "harness/core/process.hpp"

namespace fs = std::filesystem;

// No shell: an argument holding quotes and a command substitution reaches the program as data.
TEST(Process, ArgumentsAreDataNotCommands) {
  auto dir = fresh_temp_dir("kgate_proc_");
  const std::string marker = (dir / "ran").string();
  const std::string hostile = "'$(touch " + marker + ")'; touch " + marker;
  std::string out;
  ASSERT_TRUE(kgate::run_capture({"echo", hostile}, out));
  EXPECT_EQ(out, hostile + "\n");
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(kgate::run_capture({"false"}, out));
  EXPECT_FALSE(kgate::run_capture({"kgate-no-such-program"}, out));
  fs::remove_all(dir);
}

// export --source's commit: a source folder named like a command is only a folder.
TEST(Process, GitStateOfAHostileFolderNameRunsNothing) {
  auto dir = fresh_temp_dir("kgate_git_");
  const fs::path marker = dir / "ran";
  const fs::path src = dir / ("x'$(touch " + marker.string() + ")'");
  fs::create_directories(src);
  EXPECT_EQ(kgate::git_state(src.string()), "unknown");  // not a work tree (and no shell ran)
  EXPECT_FALSE(fs::exists(marker));
  std::string out;
  if (kgate::run_capture({"git", "-C", src.string(), "init", "-q"}, out)) {
    kgate::git_state(src.string());  // an empty repository: no HEAD yet
    EXPECT_FALSE(fs::exists(marker));
  }
  fs::remove_all(dir);
}
