#include <gtest/gtest.h>

#include "harness/core/statement.hpp"

using namespace kgate;

TEST(Statement, PathBesideTheReceipt) {
  EXPECT_EQ(statement_path("out/r.json", StatementKind::sanitize), "out/r.sanitize.json");
  EXPECT_EQ(statement_path("out/r.json", StatementKind::accept), "out/r.accept.json");
  EXPECT_EQ(statement_path("r", StatementKind::accept), "r.accept.json");
}

TEST(Statement, SanitizerLogSummaries) {
  SanitizerCounts none = parse_sanitizer_log("========= COMPUTE-SANITIZER\nnothing else\n");
  EXPECT_FALSE(none.found);
  SanitizerCounts mem = parse_sanitizer_log("========= ERROR SUMMARY: 3 errors\n");
  EXPECT_TRUE(mem.found);
  EXPECT_EQ(mem.errors, 3);
  EXPECT_EQ(mem.hazards, 0);
  EXPECT_EQ(parse_sanitizer_log("========= ERROR SUMMARY: 1 error\n").errors, 1);
  SanitizerCounts race =
      parse_sanitizer_log("========= RACECHECK SUMMARY: 4 hazards displayed (2 errors, 2 warnings)\n");
  EXPECT_TRUE(race.found);
  EXPECT_EQ(race.errors, 2);
  EXPECT_EQ(race.hazards, 4);
  // Warnings alone are hazards: the gate fails them too.
  SanitizerCounts warn = parse_sanitizer_log("RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n");
  EXPECT_EQ(warn.errors, 0);
  EXPECT_EQ(warn.hazards, 1);
  // Both summaries: the ERROR SUMMARY's count is the errors.
  SanitizerCounts both = parse_sanitizer_log(
      "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n========= ERROR SUMMARY: 7 errors\n");
  EXPECT_EQ(both.errors, 7);
}

namespace {

json receipt_with(const std::vector<std::string>& arms) {
  json checks = json::array();
  for (const auto& a : arms) checks.push_back({{"arm", a}, {"passed", true}});
  return {{"body", {{"predicate", {{"rows", {{{"id", "r1"}, {"correctness", checks}}}}}}}}};
}

json statement_with(const json& runs) { return {{"body", {{"predicate", {{"runs", runs}}}}}}; }

json clean_runs(const std::vector<std::string>& arms) {
  json runs = json::array();
  for (const auto& a : arms)
    for (const auto& t : kSanitizerTools)
      runs.push_back({{"rows", {"r1"}}, {"arm", a}, {"tool", t}, {"exit_code", 0}, {"errors", 0}, {"hazards", 0}});
  return runs;
}

}  // namespace

TEST(Statement, SanitizedRowsNeedEveryArmUnderEveryTool) {
  const json receipt = receipt_with({"cand", "base"});
  json runs = clean_runs({"cand", "base"});
  EXPECT_EQ(sanitized_rows(statement_with(runs), receipt).at("r1"), "");
  json one_arm = clean_runs({"cand"});
  EXPECT_EQ(sanitized_rows(statement_with(one_arm), receipt).at("r1"), "base was not run under memcheck");
  json hazards = runs;
  hazards[1]["hazards"] = 2;  // cand under racecheck
  EXPECT_EQ(sanitized_rows(statement_with(hazards), receipt).at("r1"), "cand under racecheck: 2 hazards");
  json crashed = runs;
  crashed[2]["exit_code"] = 3;
  EXPECT_EQ(sanitized_rows(statement_with(crashed), receipt).at("r1"),
            "cand under synccheck: the call did not complete (exit 3)");
  json no_summary = runs;
  no_summary[3]["errors"] = nullptr;
  EXPECT_EQ(sanitized_rows(statement_with(no_summary), receipt).at("r1"),
            "cand under initcheck: no summary in its log");
}

TEST(Statement, SanitizedGateFollowsTheEvidence) {
  Policy pol = Policy::parse("correct,sanitized");
  RowRecord row;
  row.id = "r1";
  row.verdicts.failed = {"sanitized"};  // judge_row has no raw verdict for it
  std::vector<RowRecord> rows = {row};
  auto reasons = judge_sanitized(rows, pol, std::map<std::string, std::string>{{"r1", ""}});
  EXPECT_TRUE(reasons.empty());
  EXPECT_TRUE(rows[0].verdicts.policy);
  EXPECT_EQ(rows[0].verdicts.raw["sanitized"], true);
  rows = {row};
  reasons = judge_sanitized(rows, pol, std::map<std::string, std::string>{{"r1", "cand under memcheck: 1 errors"}});
  EXPECT_FALSE(rows[0].verdicts.policy);
  EXPECT_EQ(rows[0].verdicts.failed, std::vector<std::string>{"sanitized"});
  rows = {row};
  reasons = judge_sanitized(rows, pol, std::nullopt);
  EXPECT_FALSE(rows[0].verdicts.policy);
  EXPECT_NE(reasons.at("r1").find("no sanitize statement"), std::string::npos);
  // A policy without the gate leaves the row alone.
  rows = {row};
  EXPECT_TRUE(judge_sanitized(rows, Policy::parse("correct"), std::nullopt).empty());
  EXPECT_FALSE(rows[0].verdicts.raw.contains("sanitized"));
}
