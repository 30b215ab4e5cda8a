// Policy parsing (policy.cpp): every value finite and >= 0, bounded specs and messages.
#include <gtest/gtest.h>

#include "tests/unit/temp_dir.hpp"

#include <cmath>
#include <filesystem>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/policy.hpp"

using namespace kgate;

namespace {

std::string policy_error(const std::string& spec) {
  try {
    Policy::parse(spec);
  } catch (const InputError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_LT(m.size(), 300u) << m.substr(0, 300);
    return m;
  }
  ADD_FAILURE() << "no InputError for --policy " << spec.substr(0, 80);
  return "";
}

std::string from_json_error(const json& j) {
  try {
    Policy::from_json(j, "receipt policy");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError for " << j.dump();
  return "";
}

}  // namespace

TEST(Policy, NonFiniteAndNegativeValuesAreRefusedInSpecs) {
  for (const char* spec :
       {"limit(nan)", "limit(NaN)", "drift(inf)", "correct,drift(-inf)", "limit(-1)", "limit(1e999)"})
    EXPECT_NE(policy_error(spec).find("--policy"), std::string::npos) << spec;
  EXPECT_NE(policy_error("limit(nan)").find("finite"), std::string::npos);
  EXPECT_DOUBLE_EQ(*Policy::parse("limit(0)").limit, 0.0);
}

TEST(Policy, NonFiniteValuesAreRefusedInJson) {
  // A receipt's policy or a policy file built in-process can carry NaN/inf as doubles.
  const double nan = std::nan(""), inf = INFINITY;
  EXPECT_NE(from_json_error(json{{"gates", {"limit"}}, {"limit", nan}}).find("field 'limit'"), std::string::npos);
  EXPECT_NE(from_json_error(json{{"gates", {"drift"}}, {"drift", inf}}).find("field 'drift'"), std::string::npos);
  EXPECT_NE(from_json_error(json{{"gates", {"limit"}}, {"limit_by_tag", {{"a=b", nan}}}}).find("limit_by_tag.a=b"),
            std::string::npos);
  json by = {{"gates", {"correct"}}, {"by_baseline", {{"b", {{"gates", {"limit"}}, {"limit", -inf}}}}}};
  EXPECT_NE(from_json_error(by).find("by_baseline.'b'"), std::string::npos);
  EXPECT_NE(from_json_error(json{{"gates", {"limit"}}, {"limit", "0.1"}}).find("finite number"), std::string::npos);
}

TEST(Policy, LongSpecsAndOddNamesGiveBoundedMessages) {
  std::string m = policy_error(std::string(100000, 'x'));  // was a filesystem_error (exit 3)
  EXPECT_NE(m.find("--policy: 100000 bytes"), std::string::npos) << m;
  m = policy_error(std::string(5000, 'g'));  // longer than a path may be, shorter than the spec limit
  EXPECT_NE(m.find("unknown gate"), std::string::npos) << m;
  m = policy_error("correct,bad\ngate");
  EXPECT_NE(m.find("unknown gate 'bad\\ngate'"), std::string::npos) << m;
  m = from_json_error(
      json{{"gates", {"correct"}}, {"by_baseline", {{std::string(1000, 'b') + "\n", {{"gates", {"x"}}}}}}});
  EXPECT_LT(m.size(), 400u) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(Policy, DeepPolicyFileIsAnInputError) {
  auto dir = fresh_temp_dir("kgate_policy_");
  std::string p = (dir / "deep.json").string();
  write_file_atomic(p, std::string(200000, '[') + std::string(200000, ']'));
  try {
    Policy::parse(p);
    ADD_FAILURE() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos) << e.what();
  }
  write_file_atomic(p, R"({"gates": ["limit"], "limit": 0.05})");
  EXPECT_DOUBLE_EQ(*Policy::parse(p).limit, 0.05);
  std::filesystem::remove_all(dir);
}

TEST(Policy, UnknownFieldsAreRefusedWithTheNearestName) {
  std::string m = from_json_error(json{{"gates", {"correct"}}, {"accept_refusal", {"b"}}});
  EXPECT_NE(m.find("unknown field 'accept_refusal'"), std::string::npos) << m;
  EXPECT_NE(m.find("accept_refusals"), std::string::npos) << m;
  m = from_json_error(json{{"gates", {"strict"}}, {"by_baseline", {{"b", {{"gates", {"limit"}}, {"limits", 0.1}}}}}});
  EXPECT_NE(m.find("unknown field 'limits'"), std::string::npos) << m;
  // A per-baseline set takes no acceptance: refusals are the policy's, at top level.
  m = from_json_error(
      json{{"gates", {"strict"}}, {"by_baseline", {{"b", {{"gates", {"strict"}}, {"accept_refusals", {"b"}}}}}}});
  EXPECT_NE(m.find("unknown field 'accept_refusals'"), std::string::npos) << m;
  // A misspelt 'gates' or gate value is named with the key it was meant to be, not reported
  // as 'gates' missing or silently ignored.
  m = from_json_error(json{{"gatez", {"correct"}}});
  EXPECT_NE(m.find("unknown field 'gatez'; did you mean 'gates'?"), std::string::npos) << m;
  m = from_json_error(json{{"gates", {"correct"}}, {"limt", 0.1}});
  EXPECT_NE(m.find("unknown field 'limt'; did you mean 'limit'?"), std::string::npos) << m;
  m = from_json_error(json::array({"correct"}));
  EXPECT_NE(m.find("must be a JSON object"), std::string::npos) << m;
  // A description is prose, accepted and not recorded.
  Policy p = Policy::from_json(json{{"description", "why"}, {"gates", {"correct"}}}, "p");
  EXPECT_FALSE(p.to_json().contains("description"));
}

TEST(Policy, AcceptRefusalsMatchesAnArmInFullOrByItsBareName) {
  Policy p = Policy::from_json(
      json{{"gates", {"correct", "strict"}}, {"accept_refusals", {"ssu.flashinfer_stock", "x:full"}}}, "p");
  EXPECT_TRUE(p.accepts_refusal("ssu.flashinfer_stock"));
  EXPECT_TRUE(p.accepts_refusal("export:libkgate_flashinfer_ssu.so:ssu.flashinfer_stock"));
  EXPECT_TRUE(p.accepts_refusal("export:/abs/path/libkgate_flashinfer_ssu.so:ssu.flashinfer_stock"));
  EXPECT_TRUE(p.accepts_refusal("x:full"));
  EXPECT_FALSE(p.accepts_refusal("y:full"));  // a full name matches only itself
  EXPECT_FALSE(p.accepts_refusal("ssu.flashinfer"));
  EXPECT_FALSE(p.accepts_refusal("ssu.flashinfer_stock2"));
  // Recorded in a policy's JSON and read back; absent when empty (older receipts' policies are unchanged).
  EXPECT_EQ(Policy::from_json(p.to_json(), "p").accept_refusals, p.accept_refusals);
  EXPECT_FALSE(Policy::parse("correct").to_json().contains("accept_refusals"));
  EXPECT_NE(from_json_error(json{{"gates", {"correct"}}, {"accept_refusals", json::array()}}).find("accept_refusals"),
            std::string::npos);
  EXPECT_NE(from_json_error(json{{"gates", {"correct"}}, {"accept_refusals", {""}}}).find("accept_refusals"),
            std::string::npos);
  EXPECT_NE(from_json_error(json{{"gates", {"correct"}}, {"accept_refusals", "b"}}).find("accept_refusals"),
            std::string::npos);
}

TEST(Policy, TheCommittedPoliciesParse) {
  // Every committed policy file is read with unknown fields refused.
  for (const auto& e : std::filesystem::directory_iterator(std::string(KGATE_SOURCE_DIR) + "/cases/policies"))
    EXPECT_NO_THROW(Policy::parse(e.path().string())) << e.path();
  Policy fi = Policy::parse(std::string(KGATE_SOURCE_DIR) + "/cases/policies/ssu_vs_flashinfer.json");
  EXPECT_TRUE(fi.accepts_refusal("export:libkgate_flashinfer_ssu.so:ssu.flashinfer_stock"));
  EXPECT_FALSE(fi.accepts_refusal("ssu.floor"));
}

// A spec of commas names no gate: refused, never a policy that passes every row.
TEST(Policy, EmptyGateNamesAreRefused) {
  for (const char* spec : {",", ",,", "correct,", ",strict", "correct,,strict"}) {
    SCOPED_TRACE(spec);
    EXPECT_THROW(Policy::parse(spec), InputError);
  }
  EXPECT_NO_THROW(Policy::parse("correct,strict"));
}
