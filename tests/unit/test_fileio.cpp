// The file readers and writers every command goes through, and the run's journal, against
// hostile files: a FIFO, a device, a folder, a symlink loop or an oversized file is refused at
// once; a planted link at a temporary's name is never written through; a killed writer's
// temporary is cleaned; a journal killed while it was created holds nothing, and one from
// another machine is refused.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/run/journal.hpp"
#include "harness/run/preflight.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;
namespace fs = std::filesystem;

namespace {

// Whether fn throws InputError within 5 s, run in a child process: a reader that blocks forever
// (a FIFO) or reads without end (/dev/zero) fails the test instead of hanging it.
bool input_error_within_5s(const std::function<void()>& fn) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      fn();
    } catch (const InputError&) {
      ::_exit(0);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(1);
  }
  int status = 0;
  for (int i = 0; i < 500; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return false;
}

// The InputError's message, or "" with a failure when none is thrown.
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

class HostileFiles : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fresh_temp_dir("kgate_fileio_"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(HostileFiles, ReadFileRefusesFifosDevicesFoldersLoopsAndOversizedFiles) {
  ASSERT_EQ(::mkfifo(p("fifo").c_str(), 0644), 0);
  EXPECT_TRUE(input_error_within_5s([&] { read_file(p("fifo")); })) << "a FIFO with no writer";
  EXPECT_TRUE(input_error_within_5s([] { read_file("/dev/zero"); })) << "/dev/zero";
  fs::create_symlink("/dev/zero", p("zero"));
  EXPECT_TRUE(input_error_within_5s([&] { read_file(p("zero")); })) << "a link to /dev/zero";
  EXPECT_TRUE(input_error_within_5s([&] { read_file(dir_.string()); })) << "a folder";
  fs::create_symlink(p("b"), p("a"));
  fs::create_symlink(p("a"), p("b"));
  EXPECT_TRUE(input_error_within_5s([&] { read_file(p("a")); })) << "a symlink loop";
  write_file_atomic(p("big"), std::string(100, 'x'));
  EXPECT_EQ(read_file(p("big"), 100).size(), 100u);
  const std::string m = error_of([&] { read_file(p("big"), 99); });
  EXPECT_NE(m.find("100 bytes, more than the 99 bytes kgate reads"), std::string::npos) << m;
  // A sparse file past the default limit is refused from its size, before a byte is read.
  ASSERT_EQ(::truncate((write_file_atomic(p("sparse"), ""), p("sparse")).c_str(), off_t(kMaxReadBytes) + 1), 0);
  EXPECT_TRUE(input_error_within_5s([&] { read_file(p("sparse")); }));
}

TEST_F(HostileFiles, APlantedLinkAtTheTemporarysNameIsNeverWrittenThrough) {
  write_file_atomic(p("victim"), "keep");
  const std::string out = p("r.json");
  fs::create_symlink(p("victim"), temporary_name(out, 0));
  fs::create_symlink(p("victim"), out + ".tmp." + std::to_string(::getpid()));  // the name of old
  write_file_atomic(out, "receipt");
  EXPECT_EQ(read_file(p("victim")), "keep");
  EXPECT_EQ(read_file(out), "receipt");
  EXPECT_TRUE(fs::is_symlink(temporary_name(out, 0)));  // this process's: not stale, left alone
}

TEST_F(HostileFiles, AKilledWritersTemporaryIsRemovedByTheNextWrite) {
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  const std::string out = p("r.json");
  const std::string stale = out + ".tmp." + std::to_string(gone) + ".0";
  write_file_atomic(stale, "half a receipt");
  write_file_atomic(p("other.json.tmp." + std::to_string(gone) + ".0"), "another output's");
  write_file_atomic(out, "receipt");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(p("other.json.tmp." + std::to_string(gone) + ".0")));
}

TEST_F(HostileFiles, WithoutReplaceAnExistingFileIsKept) {
  write_file_atomic(p("k.key"), "old", {0600, false});
  EXPECT_EQ(fs::status(p("k.key")).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_THROW(write_file_atomic(p("k.key"), "new", {0600, false}), InputError);
  EXPECT_EQ(read_file(p("k.key")), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1) << "no temporary left";
}

TEST_F(HostileFiles, OutputPathsThatNameAFolderOrAnUnwritablePlaceAreRefused) {
  EXPECT_NE(error_of([&] { check_output_path(p("newdir/"), "--out"); }).find("names a directory"), std::string::npos);
  EXPECT_NE(error_of([&] { check_output_path(p("."), "--out"); }).find("names a directory"), std::string::npos);
  EXPECT_NE(error_of([] { check_output_path("/proc/r.json", "--out"); }).find("not writable"), std::string::npos);
  check_output_path(p("newdir/r.json"), "--out");  // created when written
}

// ---- the journal -------------------------------------------------------------------------------

json header(const std::string& identity, const std::string& host) {
  return {{"kind", "header"},
          {"identity_sha256", identity},
          {"machine", {{"backend", "cpu"}, {"gpus", json::array()}, {"host", host}, {"cpu", "c"}, {"os", "o"}}}};
}

TEST_F(HostileFiles, AnEmptyJournalBlocksNeitherAFreshRunNorAResume) {
  const std::string j = p("r.json.journal");
  write_file_atomic(j, "");
  Journal::preflight(j, false);
  Journal::preflight(j, true);
  std::vector<UnitResult> units;
  { Journal::resume(j, header("id", "h"), &units); }
  EXPECT_TRUE(units.empty());
  EXPECT_NE(read_file(j).find("\"identity_sha256\":\"id\""), std::string::npos);
  write_file_atomic(j, "{\"kind\":\"hea");  // torn while the header was written
  { Journal::create(j, header("id", "h")); }
  EXPECT_NE(read_file(j).find("\"identity_sha256\":\"id\""), std::string::npos);
  // A whole header: an unfinished run, refused before any work unless resumed.
  EXPECT_NE(error_of([&] { Journal::preflight(j, false); }).find("unfinished run"), std::string::npos);
  Journal::preflight(j, true);
  fs::remove(j);
  EXPECT_NE(error_of([&] { Journal::preflight(j, true); }).find("no journal to resume"), std::string::npos);
}

TEST_F(HostileFiles, AJournalThatIsNoFileIsRefusedAtOnce) {
  const std::string j = p("r.json.journal");
  ASSERT_EQ(::mkfifo(j.c_str(), 0644), 0);
  EXPECT_TRUE(input_error_within_5s([&] { Journal::preflight(j, true); }));
  std::vector<UnitResult> units;
  EXPECT_TRUE(input_error_within_5s([&] { Journal::resume(j, header("id", "h"), &units); }));
  fs::remove(j);
  fs::create_symlink(j, j);
  EXPECT_TRUE(input_error_within_5s([&] { Journal::preflight(j, false); }));
}

TEST_F(HostileFiles, AResumeOnAnotherMachineIsRefused) {
  const std::string j = p("r.json.journal");
  { Journal::create(j, header("id", "host-a")); }
  std::vector<UnitResult> units;
  const std::string m = error_of([&] { Journal::resume(j, header("id", "host-b"), &units); });
  EXPECT_NE(m.find("ran on host 'host-a' (c, o), this machine is host 'host-b'"), std::string::npos) << m;
  json gpu = header("id", "");
  gpu["machine"] = machine_identity(
      {{"backend", "cuda"}, {"gpus", {{{"uuid", "GPU-1"}, {"driver_version", 12040}, {"runtime_version", 1}}}}});
  { Journal::resume(j, header("id", "host-a"), &units); }  // the same machine continues
  fs::remove(j);
  { Journal::create(j, gpu); }
  json other = gpu;
  other["machine"]["gpus"][0]["driver"] = 12050;
  EXPECT_NE(error_of([&] { Journal::resume(j, other, &units); }).find("GPU-1 (driver 12040, runtime 1)"),
            std::string::npos);
  EXPECT_NE(machine_identity({{"backend", "cpu"}, {"cpu", "c"}}).value("host", ""), "");
}

}  // namespace
