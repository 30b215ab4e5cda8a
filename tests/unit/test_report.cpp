// report_wide: arm columns in pairing order, ratios to the anchor, geomeans over complete rows.
#include <gtest/gtest.h>

#include "harness/core/errors.hpp"
#include "harness/core/records.hpp"
#include "harness/core/report.hpp"

namespace kgate {
namespace {

PairRecord pair(const char* base, double base_us, double cand_us) {
  PairRecord p{base, "k.new", SampleStats{}, SampleStats{}, 1.0, 0.0, std::vector<double>{}, true};
  p.baseline_stats->median_us = base_us;
  p.candidate_stats->median_us = cand_us;
  return p;
}

json receipt() {
  json rows = json::array();
  auto row = [&](const char* id, Disposition d, std::vector<PairRecord> pairs) {
    RowRecord r;
    r.id = id;
    r.disposition = d;
    r.pairs = std::move(pairs);
    rows.push_back(to_json(r));
  };
  row("r1", Disposition::passed, {pair("k.floor", 10, 12), pair("k.old", 15, 12.5)});
  row("r2", Disposition::passed, {pair("k.floor", 20, 22), pair("k.old", 40, 21)});
  row("r3", Disposition::incorrect, {});
  return {{"body", {{"predicate", {{"rows", rows}}}}}};
}

TEST(ReportWide, ColumnsRatiosAndGeomean) {
  const std::string t = report_wide(receipt(), "k.floor");
  EXPECT_NE(t.find("| row | k.new | k.floor | k.old |"), std::string::npos) << t;
  // The candidate's median is the one from its first pairing (12, not 12.5).
  EXPECT_NE(t.find("| r1 | 12 | 10 | 15 | 1.200 | 1.000 | 1.500 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| r2 | 22 | 20 | 40 | 1.100 | 1.000 | 2.000 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| r3 (incorrect) | - | - | - | - | - | - |"), std::string::npos) << t;
  // geomeans over r1, r2: sqrt(1.2 * 1.1) = 1.149, sqrt(1.5 * 2) = 1.732
  EXPECT_NE(t.find("| geomean over 2 rows | | | | 1.149 | 1.000 | 1.732 |"), std::string::npos) << t;
}

TEST(ReportWide, DefaultAnchorIsTheFirstBaselineAndUnknownAnchorsAreRefused) {
  EXPECT_EQ(report_wide(receipt()), report_wide(receipt(), "k.floor"));
  EXPECT_NE(report_wide(receipt(), "k.old").find("| r2 | 22 | 20 | 40 | 0.550 | 0.500 | 1.000 |"), std::string::npos);
  EXPECT_THROW(report_wide(receipt(), "k.missing"), InputError);
}

}  // namespace
}  // namespace kgate
