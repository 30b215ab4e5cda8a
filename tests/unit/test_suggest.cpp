// The "did you mean" suggester (edit distance with adjacent transpositions) and the registry's
// use of it; the run's preflight uses it too (test_preflight.cpp).
#include <gtest/gtest.h>

#include "harness/core/errors.hpp"
#include "harness/core/registry.hpp"
#include "harness/core/suggest.hpp"

using namespace kgate;

TEST(EditDistance, ExactValues) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("list", "list"), 0u);
  EXPECT_EQ(edit_distance("lst", "list"), 1u);                        // insertion
  EXPECT_EQ(edit_distance("lisst", "list"), 1u);                      // deletion
  EXPECT_EQ(edit_distance("lust", "list"), 1u);                       // substitution
  EXPECT_EQ(edit_distance("eigne", "eigen"), 1u);                     // adjacent transposition: 1, not 2
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);                  // the textbook case
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);                          // restricted: no substring edited twice
  EXPECT_EQ(edit_distance("abc", "ca"), edit_distance("ca", "abc"));  // symmetric
}

TEST(Suggest, NearestNamesWithinALengthScaledBound) {
  const std::vector<std::string> cmds = {"list", "env", "run", "audit", "gate", "compare", "report", "keygen"};
  EXPECT_EQ(suggest("lst", cmds), std::vector<std::string>{"list"});
  EXPECT_EQ(suggest("audti", cmds), std::vector<std::string>{"audit"});
  EXPECT_EQ(suggest("RUN", cmds), std::vector<std::string>{"run"});     // case only: distance 0
  EXPECT_EQ(suggest("rep", cmds), std::vector<std::string>{"report"});  // a prefix, when no edit is close
  EXPECT_TRUE(suggest("xyz", cmds).empty());
  EXPECT_TRUE(suggest("list", cmds).empty());  // the word itself is no suggestion
  EXPECT_TRUE(suggest("", cmds).empty());
  // Ties keep the order of the known names; only the closest tier is returned.
  EXPECT_EQ(suggest("gat", {"gate", "gap", "gut"}), (std::vector<std::string>{"gate", "gap", "gut"}));
  EXPECT_EQ(suggest("gat", {"gate", "gap", "gut"}, 2), (std::vector<std::string>{"gate", "gap"}));
  const std::vector<std::string> flags = {"--cases", "--candidate", "--baseline", "--out", "--out-dir", "--force"};
  EXPECT_EQ(suggest("--candiate", flags), std::vector<std::string>{"--candidate"});
  EXPECT_EQ(suggest("--baselines", flags), std::vector<std::string>{"--baseline"});
  EXPECT_EQ(suggest("--forse", flags), std::vector<std::string>{"--force"});
  EXPECT_TRUE(suggest("-x", {"-h", "--help"}).empty());  // one letter replaced is no evidence
  EXPECT_TRUE(suggest("x", {"h"}).empty());
  EXPECT_EQ(suggest("-H", {"-h"}), std::vector<std::string>{"-h"});
}

TEST(Suggest, Phrases) {
  EXPECT_EQ(did_you_mean("lst", {"list", "env"}), "; did you mean 'list'?");
  EXPECT_EQ(did_you_mean("ab", {"ax", "ay"}), "; did you mean 'ax' or 'ay'?");
  EXPECT_EQ(did_you_mean("ab", {"ax", "ay", "az"}), "; did you mean 'ax', 'ay' or 'az'?");
  EXPECT_EQ(did_you_mean("zzzz", {"list"}), "");
  // Paths: as written first, then by file name alone (any directory).
  const std::vector<std::string> tables = {"cases/calib.json", "cases/ssu.json", "cases/cpu/ssu.json"};
  EXPECT_EQ(did_you_mean_path("cases/cpu/ssu.jsn", tables), "; did you mean 'cases/cpu/ssu.json'?");
  EXPECT_EQ(did_you_mean_path("cases/cpuu/ssu.json", tables), "; did you mean 'cases/cpu/ssu.json'?");
  EXPECT_EQ(did_you_mean_path("/elsewhere/ssu.json", tables),
            "; did you mean 'cases/ssu.json' or 'cases/cpu/ssu.json'?");
  EXPECT_EQ(did_you_mean_path("/elsewhere/calbi.json", tables), "; did you mean 'cases/calib.json'?");
  EXPECT_EQ(did_you_mean_path("nothing-like-it.txt", tables), "");
}

TEST(Suggest, RegistryNamesTheNearestArm) {
  try {
    Registry::instance().impl("ssu.cpu_eigne");
    FAIL() << "an unknown arm was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown implementation 'ssu.cpu_eigne'; did you mean 'ssu.cpu_eigen'?"),
              std::string::npos)
        << e.what();
  }
  try {
    Registry::instance().family("sssu");
    FAIL() << "an unknown family was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'ssu'?"), std::string::npos) << e.what();
  }
}
