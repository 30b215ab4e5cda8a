// ag_gemm's pure pieces: the overlap arm's shard order and GEMM groups (kernels/ag_gemm/config.hpp),
// and the run's world size against the rows (preflight's check_world_size).
#include <gtest/gtest.h>

#include <set>

#include "harness/core/cases.hpp"
#include "harness/core/errors.hpp"
#include "harness/run/preflight.hpp"
#include "kernels/ag_gemm/config.hpp"

using namespace kgate;
using ag_gemm::GemmGroup;

// Rank 0 through the copy engine at 8 ranks of 4096 rows: own shard, then 1, 2 and 4 shards, ascending.
TEST(AgGemmPlan, DoublingGroupsFromTheOwnShard) {
  const ag_gemm::Problem p{8, 0, 4096, 64, 64};
  EXPECT_EQ(ag_gemm::shard_order(p, false), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(ag_gemm::gemm_groups(p, false), (std::vector<GemmGroup>{{0, 1, 0}, {1, 1, 1}, {2, 2, 3}, {4, 4, 7}}));
  // Through NCCL rank 3 receives from 2, 1, 0, 7, 6, 5, 4: the runs are descending, contiguous.
  const ag_gemm::Problem q{8, 3, 4096, 64, 64};
  EXPECT_EQ(ag_gemm::shard_order(q, true), (std::vector<int>{3, 2, 1, 0, 7, 6, 5, 4}));
  EXPECT_EQ(ag_gemm::gemm_groups(q, true), (std::vector<GemmGroup>{{3, 1, 0}, {2, 1, 1}, {0, 2, 3}, {4, 4, 7}}));
  // Rank 5 through the copy engine: 6, then 7 and 0 (one group of steps, split at the wrap), then 1-4.
  const ag_gemm::Problem r{8, 5, 2048, 64, 64};
  EXPECT_EQ(ag_gemm::gemm_groups(r, false),
            (std::vector<GemmGroup>{{5, 1, 0}, {6, 1, 1}, {7, 1, 2}, {0, 1, 3}, {1, 4, 7}}));
  EXPECT_EQ(ag_gemm::gemm_groups({1, 0, 8, 8, 8}, false), (std::vector<GemmGroup>{{0, 1, 0}}));
  // Small shards (kMinGroupRows 1536): 512 rows group 3 steps at least, then the doubling: 3, 4.
  EXPECT_EQ(ag_gemm::gemm_groups({8, 0, 512, 64, 64}, false),
            (std::vector<GemmGroup>{{0, 1, 0}, {1, 3, 3}, {4, 4, 7}}));
  // 1024 rows: 2 steps, then 4, and the single step left joins them.
  EXPECT_EQ(ag_gemm::gemm_groups({8, 0, 1024, 64, 64}, false),
            (std::vector<GemmGroup>{{0, 1, 0}, {1, 2, 2}, {3, 5, 7}}));
  // Shards of 1 row at 4 ranks: every peer in one group.
  EXPECT_EQ(ag_gemm::gemm_groups({4, 0, 1, 64, 64}, false), (std::vector<GemmGroup>{{0, 1, 0}, {1, 3, 3}}));
}

// Through NCCL every rank's step i pairs: rank r receives at step i from the rank that sends to r.
TEST(AgGemmPlan, NcclStepsPairAcrossRanks) {
  for (int w = 1; w <= 12; ++w)
    for (int r = 0; r < w; ++r)
      for (int i = 0; i < w; ++i) {
        const int from = ag_gemm::shard_at({w, r, 4, 4, 4}, i, true);  // whom r receives from
        EXPECT_EQ((from + i) % w, r) << w << " " << r << " " << i;     // that rank sends to (from + i) % w
      }
}

// Every world size and rank, both transports: the groups cover every slot once, each group's slots
// are contiguous and arrived by its step, and the steps only grow.
TEST(AgGemmPlan, GroupsCoverEverySlotOnceInArrivalOrder) {
  for (int w = 1; w <= 17; ++w)
    for (int rank = 0; rank < w; ++rank)
      for (bool nccl : {false, true}) {
        for (long long m : {1LL, 700LL, 4096LL}) {
          const ag_gemm::Problem p{w, rank, m, 4, 4};
          std::vector<int> step_of(static_cast<size_t>(w));
          for (int i = 0; i < w; ++i) step_of[static_cast<size_t>(ag_gemm::shard_at(p, i, nccl))] = i;
          std::set<int> seen;
          int last = -1;
          for (const GemmGroup& g : ag_gemm::gemm_groups(p, nccl)) {
            ASSERT_GE(g.count, 1);
            ASSERT_GE(g.after, last) << w << " " << rank << " " << nccl;
            last = g.after;
            for (int s = g.first; s < g.first + g.count; ++s) {
              ASSERT_LT(s, w);
              ASSERT_TRUE(seen.insert(s).second) << "slot " << s << " twice";
              ASSERT_LE(step_of[static_cast<size_t>(s)], g.after) << "slot " << s << " not yet arrived";
            }
          }
          ASSERT_EQ(static_cast<int>(seen.size()), w);
        }
      }
}

// The world size of a cuda run must be every row's; the CPU backend plays the ranks itself and
// refuses --simulate-ranks; a family without ranks refuses a world size.
TEST(AgGemmPlan, WorldSizeAgainstTheRows) {
  const CaseTable t = parse_case_table("t.json", R"({"table": "t", "family": "ag_gemm", "rows": [
    {"id": "w1", "params": {"world_size": 1, "m": 8, "n": 8, "k": 8}},
    {"id": "w8", "params": {"world_size": 8, "m": 8, "n": 8, "k": 8}}]})");
  RunConfig c;
  auto err = [&](const CaseTable& tt, const std::string& backend) {
    try {
      check_world_size(c, tt, backend);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err(t, "cuda").find("row 'w8' has world_size 8, this run 1"), std::string::npos) << err(t, "cuda");
  EXPECT_EQ(err(t, "cpu"), "");
  c.world_size = 8;
  c.simulated = true;
  EXPECT_NE(err(t, "cuda").find("--simulate-ranks: row 'w1' has world_size 1, this run 8"), std::string::npos);
  EXPECT_NE(err(t, "cpu").find("needs the cuda backend"), std::string::npos);
  CaseTable only8 = t;
  only8.rows.erase(only8.rows.begin());
  EXPECT_EQ(err(only8, "cuda"), "");
  const CaseTable ssu = parse_case_table("s.json", R"({"table": "s", "family": "ssu", "rows": [
    {"id": "s", "params": {"batch": 2, "nheads": 4, "ngroups": 1, "pool_slots": 4, "state_dtype": "bf16"}}]})");
  EXPECT_NE(err(ssu, "cuda").find("has no ranks"), std::string::npos);
}
