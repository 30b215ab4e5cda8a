// The gate table and the one wording of a failed gate (harness/report/gate_text.hpp).
#include <gtest/gtest.h>

#include "harness/core/policy.hpp"
#include "harness/core/verdicts.hpp"
#include "harness/report/gate_text.hpp"

using namespace kgate;

namespace {

// A measured row of one pair: the candidate at `cand` us, the baseline at `base` us.
RowRecord measured_row(double base, double cand, double lo, double hi) {
  RowRecord r;
  r.id = "r1";
  r.disposition = Disposition::passed;
  PairRecord p{"b", "c", {}, {}, {}, {}, {}, {}, {}};
  p.baseline_stats = SampleStats{8, base, base, base, 0, base, base};
  p.candidate_stats = SampleStats{8, cand, cand, cand, 0, cand, cand};
  p.ratio = base / cand;
  p.ratio_ci = RatioInterval{lo, hi};
  p.drift = 0.01;
  p.group_ratios = std::vector<double>{0.9, 1.3};
  p.groups_agree = false;
  r.pairs.push_back(p);
  return r;
}

std::vector<std::string> texts(const RowRecord& row, const Policy& p) {
  RowRecord judged = row;
  judged.verdicts.failed.clear();
  std::vector<std::string> out;
  for (const auto& g : p.gates) judged.verdicts.failed.push_back(g);
  for (const GateResult& r : failed_gates(judged, p, 0.99)) out.push_back(gate_text(r));
  return out;
}

}  // namespace

TEST(GateTable, NamesPolicyParsingAndHelpReadTheTable) {
  std::vector<std::string> names;
  for (const auto& g : gate_table()) names.push_back(g.name);
  EXPECT_EQ(names, all_gate_names());
  EXPECT_EQ(gate_names_text(","), "correct,strict,strict_median,limit(L),drift(D),parity,fallback,sanitized");
  EXPECT_NE(gate_help_text().find("  limit(L)       candidate <= (1+L) x baseline"), std::string::npos);
  EXPECT_EQ(find_gate("nope"), nullptr);
}

TEST(GateText, EachGateSaysWhatItComparedWithWhat) {
  const RowRecord row = measured_row(10, 8, 0.98, 1.4);  // ratio 1.25, interval reaching below 1
  EXPECT_EQ(texts(row, Policy::parse("strict")),
            std::vector<std::string>{"strict vs b: ratio interval lower bound 0.9800 is not > 1 (ratio 1.250, 99% "
                                     "interval [0.9800, 1.400]; candidate 8.000 us, baseline 10.00 us)"});
  const RowRecord slow = measured_row(8, 10, 0.7, 0.9);
  EXPECT_EQ(texts(slow, Policy::parse("limit(0.2)")),
            std::vector<std::string>{"limit vs b: candidate / baseline median time 1.250 is not <= 1.2 (ratio "
                                     "0.8000, 99% interval [0.7000, 0.9000]; candidate 10.00 us, baseline 8.000 us)"});
}

TEST(GateText, DriftWithinItsBoundStillFailsWhenTheGroupsDisagree) {
  const std::vector<std::string> t = texts(measured_row(10, 8, 1.1, 1.4), Policy::parse("drift(0.02)"));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].rfind("drift vs b: drift 0.0100 <= 0.02 (ratio 1.250", 0), 0u) << t[0];
  EXPECT_NE(t[0].find("; the groups disagree in direction (group ratios 0.9000, 1.300)"), std::string::npos) << t[0];
}

TEST(GateText, WhatCouldNotBeJudgedSaysWhy) {
  RowRecord row = measured_row(10, 8, 1.1, 1.4);
  EXPECT_EQ(texts(row, Policy::parse("parity")),
            std::vector<std::string>{"parity vs b: not judged: no activity signatures (needs the cupti timer)"});
  row.disposition = Disposition::failed;
  row.error = "device error";
  row.pairs[0] = PairRecord{"b", "c", {}, {}, {}, {}, {}, {}, {}};  // a failed row measures nothing
  row.verdicts.failed = {"disposition", "strict"};
  std::vector<std::string> t;
  for (const GateResult& r : failed_gates(row, Policy::parse("strict"), 0.99)) t.push_back(gate_text(r));
  EXPECT_EQ(t, (std::vector<std::string>{"disposition failed: device error",
                                         "strict vs b: not judged: not measured (disposition failed)"}));
}

TEST(GateText, AnIncorrectRowShowsItsFailedCheckEvenWhenThePolicyDoesNotNameCorrect) {
  RowRecord row = measured_row(10, 8, 1.1, 1.4);
  row.disposition = Disposition::incorrect;
  row.pairs[0] = PairRecord{"b", "c", {}, {}, {}, {}, {}, {}, {}};
  Correctness k;
  k.elements = 64;
  k.mismatches = 2;
  k.max_abs_err = 0.5;
  k.max_rel_err = 0.25;
  row.correctness.push_back({"c", k});
  row.tolerance = {0.01, 0.01};
  row.verdicts.failed = {"disposition", "strict"};
  std::vector<std::string> t;
  for (const GateResult& r : failed_gates(row, Policy::parse("strict"), 0.99)) t.push_back(gate_text(r));
  EXPECT_EQ(t, (std::vector<std::string>{
                   "disposition incorrect: no error recorded",
                   "correct: c: 2 of 64 elements outside tolerance (atol 0.01 + rtol 0.01 x abs(ref)), 0 non-finite, 0 "
                   "unwritten; max abs err 0.5, max rel err 0.25",
                   "strict vs b: not judged: not measured (disposition incorrect)"}));
}
