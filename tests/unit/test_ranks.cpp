// The rank environment (launcher variables) and the rendezvous file: harness/run/ranks.hpp.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/run/ranks.hpp"
#include "tests/unit/temp_dir.hpp"

using namespace kgate;
using namespace kgate::ranks;
using namespace std::chrono_literals;

namespace {
EnvLookup env_of(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* n) -> const char* {
    auto it = held->find(n);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(RankEnv, NoLauncherIsOneRank) {
  const RankEnv e = rank_env(env_of({}));
  EXPECT_EQ(e.launcher, "none");
  EXPECT_EQ(e.rank, 0);
  EXPECT_EQ(e.world_size, 1);
  EXPECT_EQ(rendezvous_tag(e), "none:-:w1");
}

TEST(RankEnv, EachLauncherIsRead) {
  const RankEnv s = rank_env(env_of({{"SLURM_PROCID", "3"},
                                     {"SLURM_NTASKS", "8"},
                                     {"SLURM_LOCALID", "1"},
                                     {"SLURM_JOB_ID", "4711"},
                                     {"SLURM_STEP_ID", "2"}}));
  EXPECT_EQ(s.launcher, "slurm");
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.world_size, 8);
  EXPECT_EQ(s.local_rank, 1);
  EXPECT_EQ(rendezvous_tag(s), "slurm:4711.2:w8");
  const RankEnv o = rank_env(env_of({{"OMPI_COMM_WORLD_RANK", "1"},
                                     {"OMPI_COMM_WORLD_SIZE", "2"},
                                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                     {"PMIX_NAMESPACE", "prterun-x-1@1"}}));
  EXPECT_EQ(o.launcher, "openmpi");
  EXPECT_EQ(o.rank, 1);
  EXPECT_EQ(o.world_size, 2);
  EXPECT_EQ(o.job, "prterun-x-1@1");
  const RankEnv p = rank_env(env_of({{"PMI_RANK", "0"}, {"PMI_SIZE", "4"}}));
  EXPECT_EQ(p.launcher, "pmi");
  EXPECT_EQ(p.world_size, 4);
  EXPECT_EQ(p.local_rank, 0);
  EXPECT_EQ(p.job, "");
}

TEST(RankEnv, AgreeingLaunchersAreOneAndDisagreeingOnesAnError) {
  // srun starting an Open MPI program sets both families of variables.
  const RankEnv e = rank_env(env_of(
      {{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}, {"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
  EXPECT_EQ(e.launcher, "slurm");
  EXPECT_EQ(e.rank, 2);
  const std::string why = error_of([] {
    rank_env(env_of(
        {{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "4"}, {"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
  });
  EXPECT_NE(why.find("slurm says rank 2 of 4, openmpi says rank 1 of 4"), std::string::npos) << why;
}

TEST(RankEnv, BadValuesAreInputErrorsNamingTheVariable) {
  auto expect_input_error = [](std::map<std::string, std::string> vars, const std::string& part) {
    try {
      rank_env(env_of(vars));
      ADD_FAILURE() << "no error; expected one naming " << part;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_input_error({{"SLURM_PROCID", "x"}, {"SLURM_NTASKS", "2"}}, "SLURM_PROCID='x' is not a non-negative integer");
  expect_input_error({{"SLURM_PROCID", "-1"}, {"SLURM_NTASKS", "2"}}, "SLURM_PROCID");
  expect_input_error({{"SLURM_PROCID", ""}, {"SLURM_NTASKS", "2"}}, "SLURM_PROCID");
  expect_input_error({{"SLURM_PROCID", "2"}, {"SLURM_NTASKS", "2"}}, "SLURM_PROCID=2 is not below SLURM_NTASKS=2");
  expect_input_error({{"PMI_RANK", "0"}, {"PMI_SIZE", "0"}}, "PMI_SIZE must be >= 1");
  expect_input_error({{"OMPI_COMM_WORLD_RANK", "0"}}, "OMPI_COMM_WORLD_RANK is set but OMPI_COMM_WORLD_SIZE is not");
  expect_input_error({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_LOCALID", "a"}}, "SLURM_LOCALID");
}

TEST(Rendezvous, HexRoundTripsAndRejectsGarbage) {
  const std::vector<uint8_t> id = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
  EXPECT_EQ(to_hex(id), "00017f80abff");
  EXPECT_EQ(from_hex("00017F80ABff"), id);
  EXPECT_THROW(from_hex("abc"), InputError);
  EXPECT_THROW(from_hex("zz"), InputError);
}

TEST(Rendezvous, RanksReceiveRankZerosIdThroughTheFile) {
  const auto dir = fresh_temp_dir("kgate_rdv_");
  const std::string path = (dir / "rdv.json").string();
  const std::string tag = "slurm:99.0:w4";
  std::vector<uint8_t> id(128);
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<std::vector<uint8_t>> got(3);
  std::vector<std::thread> waiters;
  for (int r = 1; r < 4; ++r) waiters.emplace_back([&, r] { got[r - 1] = wait_for(path, tag, 4, 10s, 1ms); });
  std::this_thread::sleep_for(20ms);  // the waiters poll an absent file first
  publish(path, tag, 4, id);
  for (auto& w : waiters) w.join();
  for (const auto& g : got) EXPECT_EQ(g, id);
  std::filesystem::remove_all(dir);
}

TEST(Rendezvous, AnEarlierJobsFileIsIgnoredUntilRankZeroReplacesIt) {
  const auto dir = fresh_temp_dir("kgate_rdv_");
  const std::string path = (dir / "rdv.json").string();
  publish(path, "slurm:98.0:w2", 2, {1, 2, 3});  // left behind by job 98
  std::vector<uint8_t> got;
  std::thread waiter([&] { got = wait_for(path, "slurm:99.0:w2", 2, 10s, 1ms); });
  std::this_thread::sleep_for(20ms);
  publish(path, "slurm:99.0:w2", 2, {9, 8, 7});
  waiter.join();
  EXPECT_EQ(got, (std::vector<uint8_t>{9, 8, 7}));
  std::filesystem::remove_all(dir);
}

TEST(Rendezvous, ABoundedWaitFailsClearly) {
  const auto dir = fresh_temp_dir("kgate_rdv_");
  const std::string path = (dir / "rdv.json").string();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    wait_for(path, "pmi:-:w2", 2, 50ms, 5ms);
    ADD_FAILURE() << "no timeout";
  } catch (const DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no id for tag 'pmi:-:w2'"), std::string::npos) << m;
    EXPECT_NE(m.find("the file held: no file"), std::string::npos) << m;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  publish(path, "pmi:-:w3", 3, {1});  // another job's file: still a timeout, which names it
  const std::string m = error_of([&] { wait_for(path, "pmi:-:w2", 2, 30ms, 5ms); });
  EXPECT_NE(m.find("tag 'pmi:-:w3' (an earlier job's)"), std::string::npos) << m;
  std::filesystem::remove_all(dir);
}

TEST(Rendezvous, AForeignOrMismatchedFileIsAnInputError) {
  const auto dir = fresh_temp_dir("kgate_rdv_");
  const std::string path = (dir / "rdv.json").string();
  write_file_atomic(path, "not json\n");
  EXPECT_THROW(wait_for(path, "t", 2, 1s, 1ms), InputError);
  write_file_atomic(path, "{\"something\": 1}\n");
  EXPECT_THROW(wait_for(path, "t", 2, 1s, 1ms), InputError);
  publish(path, "t", 4, {1, 2});
  const std::string m = error_of([&] { wait_for(path, "t", 2, 1s, 1ms); });
  EXPECT_NE(m.find("names world size 4, this rank has 2"), std::string::npos) << m;
  std::filesystem::remove_all(dir);
}
