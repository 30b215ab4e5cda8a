// The rank threads' peer table: every rank's pointer once all have published; a missing rank
// fails the wait within the bound, named; a rank that gave up a row ends every wait on that row's
// keys that still needs it at once, with its reason, and no other row's.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "harness/core/errors.hpp"
#include "harness/gpu/peer_table.hpp"

using kgate::DeviceError;
using kgate::gpu::PeerTable;
using namespace std::chrono_literals;

namespace {

// The error of table.wait_all(key), and how long it took; "" if it returned.
std::pair<std::string, std::chrono::steady_clock::duration> wait_error(PeerTable& table, const std::string& key) {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    table.wait_all(key);
  } catch (const DeviceError& e) {
    return {e.what(), std::chrono::steady_clock::now() - t0};
  }
  return {"", std::chrono::steady_clock::now() - t0};
}

}  // namespace

TEST(PeerTable, EveryRanksPointerOnceAllPublished) {
  PeerTable t(2, 10s);
  int a = 0, b = 0;
  std::thread other([&] { t.publish("r/a_local", 1, &b); });
  t.publish("r/a_local", 0, &a);
  const auto got = t.wait_all("r/a_local");
  other.join();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], &a);
  EXPECT_EQ(got[1], &b);
}

TEST(PeerTable, AMissingRankFailsTheWaitWithinTheBoundNamed) {
  PeerTable t(3, 100ms);
  int a = 0;
  t.publish("r/a_local", 0, &a);
  t.publish("r/a_local", 2, &a);
  const auto [why, took] = wait_error(t, "r/a_local");
  EXPECT_NE(why.find("rank(s) 1 did not publish within 100 ms"), std::string::npos) << why;
  EXPECT_LT(took, 5s);
}

TEST(PeerTable, ARankThatGaveUpTheRowEndsItsWaitsAtOnceWithItsReason) {
  PeerTable t(2, 60s);  // a wait that outlasted this test's run would be the bound, not the withdrawal
  int a = 0;
  t.publish("r1/a_local", 0, &a);
  std::thread other([&] {
    std::this_thread::sleep_for(50ms);
    t.withdraw("r1", 1, "out of memory");
  });
  const auto [why, took] = wait_error(t, "r1/a_local");
  other.join();
  EXPECT_NE(why.find("peer exchange 'r1/a_local': rank 1 gave up the row before publishing it: out of memory"),
            std::string::npos)
      << why;
  EXPECT_LT(took, 30s);
  // Later waits on the row's keys fail at once too (the end-of-row barrier of a context)...
  t.publish("r1/done", 0, &a);
  EXPECT_NE(wait_error(t, "r1/done").first.find("rank 1 gave up the row"), std::string::npos);
  // ...but not a key the withdrawn rank had published, nor another row's keys.
  PeerTable u(2, 100ms);
  u.publish("r1/a_local", 0, &a);
  u.publish("r1/a_local", 1, &a);
  u.withdraw("r1", 1, "enable_peer_access failed");
  EXPECT_EQ(u.wait_all("r1/a_local").size(), 2u);
  u.publish("r10/a_local", 0, &a);
  EXPECT_NE(wait_error(u, "r10/a_local").first.find("did not publish within"), std::string::npos);
}
