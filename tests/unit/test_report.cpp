// Report printers and `kgate compare` over a small fixed receipt built here from typed records
// (no timing): golden files for every printer, escaping, the compare classes and the change
// interval, and report_wide's columns.
//
// Golden files live in tests/golden/. After an intended change of a printer, regenerate them with
//   KGATE_UPDATE_GOLDEN=1 build-cpu/tests/kgate_unit --gtest_filter='ReportGolden.*'
// and review the diff (git diff tests/golden) before committing. A mismatch writes the actual
// output beside the test's working directory as <name>.actual.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "harness/core/errors.hpp"
#include "harness/core/fileio.hpp"
#include "harness/core/receipt.hpp"
#include "harness/report/compare.hpp"
#include "harness/core/records.hpp"
#include "harness/report/report.hpp"
#include "harness/report/report_text.hpp"
#include "harness/core/verdicts.hpp"

namespace kgate {
namespace {

// The compare fixtures' intervals alone decide their classes.
const CompareRule kNoRunNoise{0.02, 0.05, 0};

namespace fs = std::filesystem;

// ---- The fixture: three arms (candidate, baseline, floor), five rows ---------------------------

const char* const kOddId = "r4 <&\"'|>";  // every character a printer must escape

struct PairSpec {
  std::string baseline;
  double base_us, cand_us, lo, hi;
};

struct RowSpec {
  std::string id;
  int batch;
  std::map<std::string, std::string> tags;
  Disposition disposition;
  std::optional<std::string> error;
  std::vector<PairSpec> pairs;  // measured pairs (empty: the row was not measured)
};

Policy fixture_policy() {
  return Policy::from_json(json::parse(R"({"gates": ["correct"], "by_baseline": {
      "k.base": {"gates": ["strict"]},
      "k.floor": {"gates": ["limit"], "limit": 0.05, "limit_by_tag": {"band=wide": 0.5}}}})"),
                           "fixture");
}

SampleStats stats(double median) {
  return {36, median, median * 0.98, median * 1.03, median * 0.05, median * 0.95, median * 1.2};
}

Correctness check(bool passed) {
  Correctness c;
  c.passed = passed;
  c.elements = 4096;
  c.max_abs_err = passed ? 0.0078125 : 0.25;
  c.max_rel_err = passed ? 0.004 : 0.2;
  c.worst = passed ? "out[b=0,h=0]" : "out[b=3,h=1]";
  c.worst_out = passed ? 0.5 : 1.5;
  c.worst_ref = passed ? 0.5 : 1.25;
  c.mismatches = passed ? 0 : 3;
  return c;
}

// The verdicts derive_row gives under fixture_policy() (pair gates only by_baseline).
void judge(RowRecord& r, const Policy& pol) {
  const bool measured = r.disposition == Disposition::passed;
  json raw = {{"strict", nullptr}, {"strict_median", nullptr}, {"limit", nullptr},   {"limit_value", nullptr},
              {"drift", nullptr},  {"parity", nullptr},        {"fallback", nullptr}};
  bool correct = r.disposition != Disposition::incorrect;
  for (const auto& c : r.correctness) correct &= c.result.passed;
  raw["correct"] = correct;
  raw["by_baseline"] = json::object();
  std::vector<std::string> failed;
  if (!measured) failed.push_back("disposition");
  if (!correct) failed.push_back("correct");
  for (const auto& [name, g] : pol.by_baseline) {
    std::optional<double> L = g.limit;
    for (const auto& [kv, v] : g.limit_by_tag)
      if (r.tags.count(kv.substr(0, kv.find('='))) &&
          r.tags.at(kv.substr(0, kv.find('='))) == kv.substr(kv.find('=') + 1))
        L = v;
    json b = {{"strict", nullptr},  {"strict_median", nullptr},
              {"limit", nullptr},   {"limit_value", L ? json(*L) : json(nullptr)},
              {"drift", nullptr},   {"parity", nullptr},
              {"fallback", nullptr}};
    for (const auto& p : r.pairs)
      if (p.baseline == name && measured) {
        b["strict"] = p.ratio_ci->lo > 1;
        b["strict_median"] = *p.ratio > 1;
        if (L) b["limit"] = p.candidate_stats->median_us <= (1 + *L) * p.baseline_stats->median_us;
      }
    for (const auto& gate : g.gates)
      if (!(b[gate].is_boolean() && b[gate].get<bool>())) failed.push_back(gate + "@" + name);
    raw["by_baseline"][name] = b;
  }
  r.verdicts = {raw, failed.empty(), failed};
}

RowRecord make_row(const RowSpec& s, const Policy& pol) {
  RowRecord r;
  r.id = s.id;
  r.family = "ssu";
  r.params = {{"batch", s.batch}, {"nheads", 8}, {"state_dtype", s.tags.at("dtype")}};
  r.tags = s.tags;
  r.tolerance = {0.01, 0.01};
  r.disposition = s.disposition;
  r.error = s.error;
  for (const char* arm : {"k.new", "k.base", "k.floor"})
    r.correctness.push_back({arm, check(!(s.disposition == Disposition::incorrect && std::string(arm) == "k.new"))});
  for (const char* b : {"k.base", "k.floor"}) {
    PairRecord p;
    p.baseline = b;
    p.candidate = "k.new";
    for (const auto& ps : s.pairs)
      if (ps.baseline == b) {
        p.baseline_stats = stats(ps.base_us);
        p.candidate_stats = stats(ps.cand_us);
        p.ratio = ps.base_us / ps.cand_us;
        p.drift = 0.01;
        p.group_ratios = std::vector<double>{*p.ratio * 0.99, *p.ratio, *p.ratio * 1.01};
        p.groups_agree = true;
        p.ratio_ci = RatioInterval{ps.lo, ps.hi};
      }
    r.pairs.push_back(p);
  }
  r.work = Work{s.batch * 4e6, s.batch * 2e9};
  if (!s.pairs.empty() && s.batch == 1) {
    r.events_timer_us =
        std::map<std::string, SideSummary>{{"k.base", {10.25, 9.9, 11.5, 36}}, {"k.new", {8.125, 7.9, 9, 36}}};
    r.sm_clock_mhz =
        std::map<std::string, SideSummary>{{"k.base", {1980, 1965, 1980, 36}}, {"k.new", {1980, 1980, 1980, 36}}};
    r.throttled_samples = 0;
  }
  judge(r, pol);
  return r;
}

std::vector<RowSpec> old_rows() {
  return {
      {"r1-b1",
       1,
       {{"band", "narrow"}, {"dtype", "bf16"}},
       Disposition::passed,
       std::nullopt,
       {{"k.base", 10, 8, 1.2, 1.3}, {"k.floor", 7.8, 8, 0.97, 0.98}}},
      {"r2-b4",
       4,
       {{"band", "narrow"}, {"dtype", "fp32"}},
       Disposition::passed,
       std::nullopt,
       {{"k.base", 20, 19, 0.98, 1.12}, {"k.floor", 18.5, 19, 0.97, 0.977}}},
      {"r3-b16",
       16,
       {{"band", "wide"}, {"dtype", "bf16"}},
       Disposition::passed,
       std::nullopt,
       {{"k.base", 50, 40, 1.1, 1.4}, {"k.floor", 25, 40, 0.6, 0.65}}},
      {kOddId,
       64,
       {{"band", "wide"}, {"dtype", "bf16"}},
       Disposition::incorrect,
       "k.new: 3 mismatches | worst <out[b=3,h=1]> & more",
       {}},
      {"r5-fail",
       2,
       {{"band", "narrow"}, {"dtype", "bf16"}},
       Disposition::failed,
       "device error: cudaErrorIllegalAddress\nat launch.cu:42",
       {}},
  };
}

// The newer run: r1 FASTER vs k.base and SAME vs the floor, r2 UNRESOLVED / SAME (resolved but
// small), r3 SLOWER / SAME (within the margin), the odd row UNMEASURED twice, r5 gone, r6 new.
std::vector<RowSpec> new_rows() {
  auto rows = old_rows();
  rows[0].pairs = {{"k.base", 14, 10, 1.35, 1.45}, {"k.floor", 9.8, 10, 0.975, 0.985}};
  rows[1].pairs = {{"k.base", 21.2, 20, 0.99, 1.13}, {"k.floor", 19.8, 20, 0.988, 0.992}};
  rows[2].pairs = {{"k.base", 40, 40, 0.95, 1.05}, {"k.floor", 25.2, 40, 0.62, 0.64}};
  rows.pop_back();
  rows.push_back({"r6-new",
                  8,
                  {{"band", "narrow"}, {"dtype", "bf16"}},
                  Disposition::passed,
                  std::nullopt,
                  {{"k.base", 30, 20, 1.4, 1.6}, {"k.floor", 19, 20, 0.94, 0.96}}});
  return rows;
}

json arm(const std::string& name, const std::string& role, const std::string& registered) {
  return {{"name", name},
          {"role", role},
          {"registered_role", registered},
          {"backend", "cuda"},
          {"archs", {"sm_90a"}},
          {"kernel_names", {name.substr(2) + "_kernel"}},
          {"sources", {{{"path", "kernels/toy/" + name.substr(2) + ".cu"}, {"sha256", std::string(64, name[2])}}}}};
}

json fixture_receipt(const std::vector<RowSpec>& specs, const std::string& commit, bool peaks = true) {
  const Policy pol = fixture_policy();
  std::vector<RowRecord> rows;
  for (const auto& s : specs) rows.push_back(make_row(s, pol));
  json env = {{"backend", "cuda"},
              {"gpus", {{{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"max_sm_clock_mhz", 1980}}}}};
  if (peaks)
    env["peaks"] = {{"copy_bytes_per_s", 4e12},
                    {"gemm_bf16_flops_per_s", 9e14},
                    {"copy_method", "device-to-device copy, 1 GiB"},
                    {"gemm_method", "cuBLAS BF16 8192^3"}};
  IntervalSpec interval;
  json pred;
  pred["tool"] = {
      {"name", "kgate"}, {"version", "0.1.0"}, {"git_commit", commit}, {"binary_sha256", std::string(64, 'b')}};
  pred["backend"] = "cuda";
  pred["timer"] = "cupti";
  pred["environment"] = env;
  pred["protocol"] = {{"groups", 3}, {"blocks", 6},     {"m", 2},
                      {"seed", 7},   {"cold_l2", true}, {"interval", to_json(interval)}};
  pred["cases"] = {{"path", "cases/toy.json"}, {"sha256", std::string(64, 'c')},
                   {"table", "toy"},           {"family", "ssu"},
                   {"rows_filter", ""},        {"sweep", "batch"}};
  pred["arms"] = {arm("k.new", "candidate", "candidate"), arm("k.base", "baseline", "baseline"),
                  arm("k.floor", "baseline", "floor")};
  pred["policy"] = pol.to_json();
  pred["rows"] = json::array();
  for (const auto& r : rows) pred["rows"].push_back(to_json(r));
  pred["summary"] = to_json(derive_summary(rows));
  pred["run"] = {{"finished_utc", "2026-01-02T03:04:05Z"}};
  pred["samples"] = {{"path", "fixture.samples.json"}, {"sha256", std::string(64, 'd')}};
  json body = {{"_type", "https://in-toto.io/Statement/v1"},
               {"subject", json::array()},
               {"predicateType", kPredicateType},
               {"predicate", pred}};
  return seal_receipt(body, std::nullopt);
}

const std::string kOldCommit = "0123456789abcdef0123456789abcdef01234567";
const std::string kNewCommit = "89abcdef0123456789abcdef0123456789abcdef";

ReportView old_view() { return report_view(fixture_receipt(old_rows(), kOldCommit), "old.json"); }
ReportView new_view() { return report_view(fixture_receipt(new_rows(), kNewCommit), "new.json"); }

std::vector<RowRecord> records(const ReportView& v) {
  std::vector<RowRecord> out;
  for (const auto& r : v.rows) out.push_back(r.record);
  return out;
}

// ---- Golden files ----------------------------------------------------------------------------

fs::path golden_dir() { return fs::path(KGATE_TEST_FIXTURES "/../golden").lexically_normal(); }

void expect_golden(const std::string& name, const std::string& got) {
  const fs::path p = golden_dir() / name;
  if (std::getenv("KGATE_UPDATE_GOLDEN")) {
    write_file_atomic(p.string(), got);
    return;
  }
  ASSERT_TRUE(fs::exists(p)) << p << " is missing: regenerate with KGATE_UPDATE_GOLDEN=1 (see the top of this file)";
  const std::string want = read_file(p.string());
  if (want == got) return;
  write_file_atomic(name + ".actual", got);
  size_t line = 1, i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) line += want[i++] == '\n';
  FAIL() << name << " differs from " << p << " from line " << line
         << " on (actual output: " << fs::absolute(name + ".actual")
         << "); after an intended change regenerate with KGATE_UPDATE_GOLDEN=1";
}

TEST(ReportGolden, Markdown) { expect_golden("report.md", report_markdown(old_view())); }
TEST(ReportGolden, Html) { expect_golden("report.html", report_html(old_view())); }
TEST(ReportGolden, Json) { expect_golden("report.json", report_json(old_view())); }
TEST(ReportGolden, Csv) { expect_golden("report.csv", report_csv(old_view())); }
TEST(ReportGolden, Wide) { expect_golden("report_wide.md", report_wide(records(old_view()), "k.floor")); }
TEST(ReportGolden, CompareMarkdown) {
  expect_golden("compare.md", compare_markdown(compare_receipts(old_view(), new_view(), kNoRunNoise)));
}
TEST(ReportGolden, CompareJson) {
  expect_golden("compare.json", compare_json(compare_receipts(old_view(), new_view(), kNoRunNoise)));
}

// ---- What the reports say --------------------------------------------------------------------

TEST(Report, MarkdownHeadlineComesFirstAndNamesTheRatioDirection) {
  const std::string md = report_markdown(old_view());
  EXPECT_EQ(md.rfind("## kgate: `k.new` vs `k.base`, `k.floor` on NVIDIA H200 (sm 9.0), table `toy`", 0), 0u) << md;
  EXPECT_NE(md.find("Derived file: made by `kgate report` from receipt `old.json`, body sha256 `"), std::string::npos);
  EXPECT_NE(md.find("Ratio = baseline median / candidate median: > 1 means the candidate is faster."),
            std::string::npos);
  EXPECT_NE(md.find("**Verdict: 1 of 5 rows pass the policy, 4 fail.**"), std::string::npos) << md;
  EXPECT_NE(md.find("commit: `" + kOldCommit + "`"), std::string::npos);
  // The headline precedes the table.
  EXPECT_LT(md.find("Verdict:"), md.find("| row | tags |"));
}

TEST(Report, MarkdownBodyFitsAPullRequestWhateverTheTableSize) {
  // 3,000 rows: the full report runs to megabytes; the body stays under kPrBodyChars with the
  // headline, the failures and the rows near the line, and names what it left out.
  std::vector<RowSpec> many;
  for (int i = 0; i < 600; ++i)
    for (RowSpec r : old_rows()) {
      r.id += "-" + std::to_string(i);
      many.push_back(std::move(r));
    }
  const ReportView v = report_view(fixture_receipt(many, kOldCommit), "big.json");
  const std::string body = report_markdown(v), full = report_markdown(v, true);
  EXPECT_LT(body.size(), kPrBodyChars);
  EXPECT_GT(full.size(), 10 * kPrBodyChars);
  for (const char* part : {"Verdict: ", "Geomean ratio by tag", "### Failures", "### Near the line", "Left out",
                           "the row table", "--format md --full"})
    EXPECT_NE(body.find(part), std::string::npos) << part;
  EXPECT_EQ(full.find("Left out"), std::string::npos);
  // A small table's body is the whole report: nothing left out.
  const std::string small = report_markdown(old_view());
  EXPECT_EQ(small.find("Left out"), std::string::npos);
  EXPECT_NE(small.find("### Rows"), std::string::npos);
  EXPECT_NE(small.find("### Near the line"), std::string::npos);
}

TEST(Report, FailuresGiveTheRowsThresholdAndTheWorstElement) {
  const std::string md = report_markdown(old_view());
  // band=wide rows have limit 0.5 (by tag), not the policy's 0.05: the threshold is 1 + 0.5.
  EXPECT_NE(md.find("limit@k.floor: candidate / baseline median time 1.600 is not <= 1.5 (ratio 0.6250, 99% interval "
                    "[0.6000, 0.6500]; candidate 40.00 us, baseline 25.00 us)"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("strict@k.base: ratio interval lower bound 0.9800 is not > 1 (ratio 1.053, 99% interval [0.9800, "
                    "1.120]"),
            std::string::npos);
  EXPECT_NE(
      md.find("correct: k.new: 3 of 4096 elements outside tolerance (atol 0.01 + rtol 0.01 x abs(ref)), 0 "
              "non-finite, 0 unwritten; max abs err 0.25, max rel err 0.2; worst out[b=3,h=1]: out 1.5, ref 1.25"),
      std::string::npos);
  // Recorded text is escaped: a pipe cannot end a cell, a line break cannot end the item.
  EXPECT_NE(md.find("3 mismatches \\| worst &lt;out[b=3,h=1]> &amp; more"), std::string::npos) << md;
  EXPECT_NE(md.find("is not <= 1.5"), std::string::npos);  // a < that opens no tag stays
  EXPECT_NE(md.find("cudaErrorIllegalAddress\\nat launch.cu:42"), std::string::npos);
  EXPECT_NE(md.find("`r4 <&\"'\\|>`"), std::string::npos);  // in a code span only the pipe is escaped
}

TEST(Report, PresentationArithmeticOverTheRecordedNumbers) {
  const ReportView v = old_view();
  const PairFigures& base = v.rows[0].figures[0];
  const PairFigures& floor = v.rows[0].figures[1];
  // r1: 4e6 bytes and 2e9 FLOPs in 8 us: 0.5 TB/s, 250 TFLOP/s; 12.5 % of 4 TB/s, 27.8 % of 900.
  EXPECT_DOUBLE_EQ(*base.candidate_tb_per_s, 0.5);
  EXPECT_DOUBLE_EQ(*base.candidate_tflop_per_s, 250);
  EXPECT_DOUBLE_EQ(*base.pct_copy_peak, 12.5);
  EXPECT_DOUBLE_EQ(*base.pct_gemm_peak, 250e12 / 9e14 * 100);
  EXPECT_FALSE(base.pct_of_floor);                       // k.base is not a floor arm
  EXPECT_DOUBLE_EQ(*floor.pct_of_floor, 7.8 / 8 * 100);  // floor time / candidate time
  EXPECT_EQ(floor.limit_value, 0.05);
  EXPECT_EQ(v.rows[2].figures[1].limit_value, 0.5);
  EXPECT_TRUE(*base.strict);
  EXPECT_FALSE(v.rows[3].figures[0].candidate_tb_per_s);  // not measured
}

TEST(Report, WithoutPeaksThePeakColumnsAreLeftOutAndPeaksPrintADash) {
  const ReportView v = report_view(fixture_receipt(old_rows(), kOldCommit, false), "r.json");
  const std::string md = report_markdown(v);
  EXPECT_NE(md.find("measured peaks: -"), std::string::npos);
  EXPECT_EQ(md.find("% copy peak"), std::string::npos);
  EXPECT_NE(md.find("| TB/s | TFLOP/s | % of floor | verdict |"), std::string::npos) << md;
  EXPECT_EQ(report_csv(v).find("12.5"), std::string::npos);
}

TEST(Report, HtmlIsSelfContainedEscapedAndEveryRowHasAnId) {
  const ReportView v = old_view();
  const std::string h = report_html(v);
  for (const char* forbidden : {"<script", "https://", "<link", "@import", "url("})
    EXPECT_EQ(h.find(forbidden), std::string::npos) << forbidden;
  // The only http is the SVG namespace.
  size_t http = 0;
  for (size_t at = h.find("http"); at != std::string::npos; at = h.find("http", at + 1)) ++http;
  size_t svgs = 0;
  for (size_t at = h.find("xmlns=\"http://www.w3.org/2000/svg\""); at != std::string::npos;
       at = h.find("xmlns=\"http://www.w3.org/2000/svg\"", at + 1))
    ++svgs;
  EXPECT_EQ(http, svgs);
  EXPECT_EQ(svgs, 4u);  // ratio vs k.base, ratio vs k.floor, time vs batch, % of floor
  for (const auto& r : v.rows)
    EXPECT_NE(h.find("<tbody id=\"row-" + report_text::html(r.record.id) + "\">"), std::string::npos);
  EXPECT_NE(h.find("id=\"row-r4 &lt;&amp;&quot;&#39;|&gt;\""), std::string::npos);
  EXPECT_EQ(h.find(kOddId), std::string::npos);
  EXPECT_EQ(h.find("worst <out"), std::string::npos);
  EXPECT_NE(h.find("id=\"chart-0\""), std::string::npos);
  EXPECT_NE(h.find("data-plot=\"70,40,940,290\""), std::string::npos);
}

TEST(Report, RatioChartAgainstAFloorShowsEachRowsLimitAndItsVerdict) {
  // k.floor is judged by limit (0.05; 0.5 on band=wide rows): each bar's tick marks 1 / (1 + L),
  // and its colour is the row's limit gate (r3-b16 fails it, r1-b1 passes); k.base (strict) keeps
  // the interval's colours and has no tick.
  const std::string h = report_html(old_view());
  const size_t floor_chart = h.find("id=\"chart-1\""), time_chart = h.find("id=\"chart-2\"");
  ASSERT_NE(floor_chart, std::string::npos);
  const std::string base = h.substr(0, floor_chart), floor = h.substr(floor_chart, time_chart - floor_chart);
  EXPECT_EQ(base.find("class=\"limit\""), std::string::npos);
  auto bar_of = [&](const std::string& row) {
    const size_t at = floor.find("data-row=\"" + row + "\"");
    return at == std::string::npos ? std::string() : floor.substr(at, floor.find("</g>", at) - at);
  };
  const std::string r1 = bar_of("r1-b1"), r3 = bar_of("r3-b16");
  EXPECT_NE(r1.find("#2e7d32"), std::string::npos) << r1;                        // passes its limit
  EXPECT_NE(r3.find("#c62828"), std::string::npos) << r3;                        // fails it
  EXPECT_NE(r1.find("limit needs ratio &gt;= 0.952"), std::string::npos) << r1;  // 1 / 1.05
  EXPECT_NE(r3.find("limit needs ratio &gt;= 0.667"), std::string::npos) << r3;  // 1 / 1.5 (band=wide)
}

TEST(Report, CsvUsesShortestRoundTripNumbers) {
  EXPECT_EQ(report_text::shortest(0.232), "0.232");
  EXPECT_EQ(report_text::shortest(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(report_text::shortest(262656), "262656");
  EXPECT_EQ(report_text::shortest(4e6), "4000000");
  EXPECT_EQ(report_text::shortest(1e-7), "1e-07");
  EXPECT_EQ(report_text::shortest(-0.5), "-0.5");
  const std::string csv = report_csv(old_view());
  EXPECT_NE(
      csv.find(
          "\nr1-b1,ssu,band=narrow dtype=bf16,passed,,k.base,baseline,k.new,10,8,0.5,0.4,1.25,1.2,1.3,0.01,true,true,,"
          "4000000,2000000000,0.5,250,12.5,"),
      std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\n\"r4 <&\"\"'|>\",ssu,"), std::string::npos);  // quoted, quote doubled
  // A line break is escaped, not quoted: every record is one line.
  EXPECT_NE(csv.find(",device error: cudaErrorIllegalAddress\\nat launch.cu:42,"), std::string::npos) << csv;
}

// Case-table strings that would drive a terminal (ESC sequences, BEL), open HTML, end a table
// cell or a line, or make a link: every printer shows them as text.
TEST(Report, HostileTableStringsAreEscapedInEveryFormat) {
  const std::string hostile =
      "x\x1b[31mred\x07<script>alert(1)</script>|[a](http://e.x)\nline\xc2\x9b"
      "2J";
  std::vector<RowSpec> rows = old_rows();
  rows[0].id = hostile;
  rows[0].tags = {{"band", hostile}, {"dtype", "bf16"}};
  rows[4].error = hostile;
  const ReportView v = report_view(fixture_receipt(rows, kOldCommit), "r.json");
  const std::string md = report_markdown(v), html = report_html(v), csv = report_csv(v);
  const std::string wide = report_wide(records(v), "k.floor");
  // Markdown shows a code span's text as written: only what is outside code spans could be markup.
  std::string md_outside_code;
  bool in_code = false;
  for (char c : md) {
    if (c == '`') in_code = !in_code;
    if (!in_code && c != '`') md_outside_code += c;
  }
  for (const auto& [name, text] :
       std::map<std::string, std::string>{{"md", md_outside_code}, {"html", html}, {"csv", csv}, {"wide", wide}}) {
    for (const char* raw : {"\x1b", "\x07", "\xc2\x9b", "\nline"})
      EXPECT_EQ(text.find(raw), std::string::npos) << name << " holds " << printable(raw) << ":\n" << text;
    // csv is not markup: its text stays as written, control characters aside.
    if (name != "csv") EXPECT_EQ(text.find("<script>"), std::string::npos) << name << ":\n" << text;
    EXPECT_NE(text.find("\\x1b"), std::string::npos) << name << ": the escape is shown as text";
  }
  for (const char* raw : {"\x1b", "\x07", "\xc2\x9b", "\nline"}) EXPECT_EQ(md.find(raw), std::string::npos) << md;
  for (const auto& [name, text] : std::map<std::string, std::string>{{"md", md_outside_code}, {"wide", wide}}) {
    EXPECT_EQ(text.find("[a](http"), std::string::npos) << name << ": a link left raw";
    EXPECT_NE(text.find("&lt;script>alert(1)&lt;/script>\\|[a\\](http://e.x)"), std::string::npos) << name << ":\n"
                                                                                                   << text;
  }
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;|[a](http://e.x)"), std::string::npos) << html;
  // csv: one line per record (the header, two pairs of each of five rows).
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 11) << csv;
  EXPECT_NE(csv.find("\\x1b[31mred\\x07<script>alert(1)</script>|[a](http://e.x)\\nline\\xc2\\x9b2J"),
            std::string::npos)
      << csv;
}

TEST(Text, TerminalEscapesControlsButKeepsBackslashes) {
  EXPECT_EQ(terminal("row\x1b[2J\x07\r\n\t\x7f"), "row\\x1b[2J\\x07\\r\\n\\t\\x7f");
  EXPECT_EQ(terminal("csi \xc2\x9b"
                     "31m and \xc2\xa0 nbsp"),
            "csi \\xc2\\x9b31m and \xc2\xa0 nbsp");  // C1 only
  EXPECT_EQ(terminal("bad \xff utf-8 \xe2\x80\xa6"), "bad \\xff utf-8 \xe2\x80\xa6");
  // Text escaped once (an error's quoted id) reads the same through it again.
  const std::string once = quoted("a\nb\\c");
  EXPECT_EQ(terminal(once), once);
  EXPECT_EQ(printable("a\\b"), "a\\\\b");  // printable stays unambiguous
}

TEST(Report, JsonIsTheViewWithStableKeys) {
  const json j = json::parse(report_json(old_view()));
  EXPECT_EQ(j["schema"], "kgate.report/1");
  EXPECT_EQ(j["ratio"], kRatioDirection);
  EXPECT_EQ(j["rows"].size(), 5u);
  EXPECT_EQ(j["rows"][2]["failures"][0]["gate"], "limit");
  EXPECT_EQ(j["rows"][2]["failures"][0]["baseline"], "k.floor");
  EXPECT_EQ(j["rows"][0]["figures"][1]["pct_of_floor"], 7.8 / 8 * 100);
  EXPECT_EQ(j["tool"]["git_commit"], kOldCommit);
  EXPECT_EQ(report_json(old_view()), report_json(old_view()));
}

// ---- Compare -----------------------------------------------------------------------------------

// The recorded intervals at the receipts' 99 %, without run noise, at 99 %: the half-widths alone.
ChangeInterval change_99(double o, RatioInterval oci, double n, RatioInterval nci) {
  return change_interval({o, oci, 0.99}, {n, nci, 0.99}, 0, 0.99);
}

TEST(Compare, ChangeIntervalCombinesHalfWidthsInQuadraturePerSide) {
  // Symmetric: both ratios 2 in [1, 4] (log half-widths ln 2): change 1 in [2^-sqrt2, 2^sqrt2].
  ChangeInterval c = change_99(2, {1, 4}, 2, {1, 4});
  EXPECT_NEAR(c.lo, std::pow(2, -std::sqrt(2.0)), 1e-12);
  EXPECT_NEAR(c.hi, std::pow(2, std::sqrt(2.0)), 1e-12);
  // Sides apart: an old ratio of 1 that may be as low as 0.5 lets the change reach 2 (upper side),
  // and nothing widens the lower side.
  c = change_99(1, {0.5, 1}, 1, {1, 1});
  EXPECT_DOUBLE_EQ(c.lo, 1);
  EXPECT_NEAR(c.hi, 2, 1e-12);
  c = change_99(1, {1, 1}, 1.5, {1.2, 1.5});  // new lower half-width only: ln 1.25
  EXPECT_NEAR(c.lo, 1.5 / 1.25, 1e-12);
  EXPECT_DOUBLE_EQ(c.hi, 1.5);
  // A point outside its interval counts as zero width on that side, never a negative one.
  c = change_99(1, {1.1, 1.2}, 1, {1, 1});
  EXPECT_NEAR(c.lo, 1 / std::exp(std::log(1.2)), 1e-12);
  EXPECT_DOUBLE_EQ(c.hi, 1);
}

TEST(Compare, ChangeIntervalAddsTheRunNoiseAndConvertsLevels) {
  EXPECT_NEAR(normal_quantile_two_sided(0.95), 1.959964, 1e-6);
  EXPECT_NEAR(normal_quantile_two_sided(0.99), 2.575829, 1e-6);
  EXPECT_NEAR(normal_quantile_two_sided(0.90), 1.644854, 1e-6);
  // Points without width: the interval is the run noise alone, at the asked level.
  ChangeInterval c = change_interval({1, {1, 1}, 0.99}, {1, {1, 1}, 0.99}, 0.02, 0.90);
  EXPECT_NEAR(std::log(c.hi), 1.644854 * 0.02, 1e-6);
  EXPECT_NEAR(std::log(c.lo), -1.644854 * 0.02, 1e-6);
  // A 95 % half-width of ln 2 is a deviation of ln 2 / 1.96: at 99 % it spans ln 2 x 2.576 / 1.96.
  c = change_interval({1, {1, 1}, 0.99}, {1, {0.5, 2}, 0.95}, 0, 0.99);
  EXPECT_NEAR(std::log(c.hi), std::log(2.0) * 2.575829 / 1.959964, 1e-6);
  // Noise and half-widths add in quadrature.
  const double z99 = normal_quantile_two_sided(0.99);
  c = change_interval({1, {1, 1}, 0.99}, {1, {std::exp(-0.03 * z99), std::exp(0.03 * z99)}, 0.99}, 0.04, 0.99);
  EXPECT_NEAR(std::log(c.hi), 0.05 * normal_quantile_two_sided(0.99), 1e-9);
}

TEST(Compare, FourClasses) {
  CompareRule r{0.02, 0.05, 0.025};  // T, M, run noise
  const ChangeInterval any{0.5, 2};
  EXPECT_EQ(classify_change(1.10, {1.05, 1.15}, any, r), ChangeClass::faster);
  EXPECT_EQ(classify_change(0.90, {0.85, 0.95}, any, r), ChangeClass::slower);
  // SAME: the equivalence interval within [1/1.05, 1.05], whatever the wider interval says.
  EXPECT_EQ(classify_change(1.00, {0.97, 1.03}, {0.98, 1.02}, r), ChangeClass::same);
  EXPECT_EQ(classify_change(1.015, {1.005, 1.03}, {1.008, 1.024}, r), ChangeClass::same);  // resolved but < T
  EXPECT_EQ(classify_change(1.00, {0.94, 1.06}, {1 / 1.05, 1.05}, r), ChangeClass::same);  // the margin's edges
  EXPECT_EQ(classify_change(1.00, {0.94, 1.06}, {0.96, 1.0501}, r), ChangeClass::unresolved);
  EXPECT_EQ(classify_change(1.10, {0.95, 1.25}, {0.98, 1.2}, r), ChangeClass::unresolved);  // interval holds 1
  EXPECT_EQ(classify_change(0.90, {0.80, 1.01}, {0.82, 0.99}, r), ChangeClass::unresolved);
  // Resolved and beyond T is FASTER even where the change is within the margin.
  EXPECT_EQ(classify_change(1.03, {1.01, 1.05}, {1.015, 1.045}, r), ChangeClass::faster);
  // The threshold's edges: change exactly 1 + T counts as FASTER, 1 - T as SLOWER.
  EXPECT_EQ(classify_change(1.02, {1.01, 1.03}, any, r), ChangeClass::faster);
  EXPECT_EQ(classify_change(0.98, {0.97, 0.99}, any, r), ChangeClass::slower);
  r.margin = 0.1;  // a larger margin
  EXPECT_EQ(classify_change(1.05, {0.99, 1.09}, {1.0, 1.08}, r), ChangeClass::same);
  EXPECT_THROW(check_compare_rule({0.02, 0, 0.02}), InputError);
  EXPECT_THROW(check_compare_rule({0.02, 0.05, -1}), InputError);
  EXPECT_THROW(check_compare_rule({1, 0.05, 0.02}), InputError);
}

TEST(Compare, MatchesRowsAndBaselinesAndClassifiesEachPair) {
  const CompareResult c = compare_receipts(old_view(), new_view(), kNoRunNoise);
  std::map<std::pair<std::string, std::string>, ChangeClass> got;
  for (const auto& p : c.pairs) got[{p.id, p.baseline}] = p.cls;
  EXPECT_EQ(got.at({"r1-b1", "k.base"}), ChangeClass::faster);
  EXPECT_EQ(got.at({"r1-b1", "k.floor"}), ChangeClass::same);
  EXPECT_EQ(got.at({"r2-b4", "k.base"}), ChangeClass::unresolved);
  EXPECT_EQ(got.at({"r2-b4", "k.floor"}), ChangeClass::same);  // resolved, 1.7 % < 2 %
  EXPECT_EQ(got.at({"r3-b16", "k.base"}), ChangeClass::slower);
  EXPECT_EQ(got.at({"r3-b16", "k.floor"}), ChangeClass::same);  // 1.008, its 90 % interval within 5 %
  EXPECT_EQ(got.at({kOddId, "k.base"}), ChangeClass::unmeasured);
  EXPECT_EQ(c.pairs.size(), 8u);
  EXPECT_TRUE(c.any_slower());
  EXPECT_EQ(c.only_old,
            (std::vector<std::pair<std::string, std::string>>{{"r5-fail", "k.base"}, {"r5-fail", "k.floor"}}));
  EXPECT_EQ(c.only_new,
            (std::vector<std::pair<std::string, std::string>>{{"r6-new", "k.base"}, {"r6-new", "k.floor"}}));
  // Geomean change over the measured pairs: vs k.base (1.4/1.25, 1.06/(20/19), 1/1.25).
  EXPECT_NEAR(c.by_baseline.at("k.base").geomean, std::cbrt(1.4 / 1.25 * (1.06 / (20.0 / 19)) * (1 / 1.25)), 1e-12);
  EXPECT_EQ(c.by_baseline.at("k.base").pairs, 3);
  EXPECT_EQ(c.by_tag.at("k.base").at("band=wide").pairs, 1);
  // A receipt compared with itself changes by exactly 1 and nothing is SLOWER.
  const CompareResult same = compare_receipts(old_view(), old_view(), CompareRule{});
  EXPECT_FALSE(same.any_slower());
  for (const auto& p : same.pairs)
    if (p.change) EXPECT_DOUBLE_EQ(*p.change, 1);
}

TEST(Compare, NoMatchingRowsIsAnInputError) {
  json other = fixture_receipt(old_rows(), kNewCommit);
  for (auto& row : other["body"]["predicate"]["rows"]) row["id"] = "x-" + row["id"].get<std::string>();
  try {
    compare_receipts(old_view(), report_view(other, "other.json"), CompareRule{});
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no rows match"), std::string::npos) << e.what();
  }
}

// ---- report_wide -------------------------------------------------------------------------------

PairRecord pair(const char* base, double base_us, double cand_us) {
  PairRecord p{base, "k.new", SampleStats{}, SampleStats{}, 1.0, 0.0, std::vector<double>{}, true};
  p.baseline_stats->median_us = base_us;
  p.candidate_stats->median_us = cand_us;
  return p;
}

std::vector<RowRecord> wide_rows() {
  std::vector<RowRecord> rows;
  auto row = [&](const char* id, Disposition d, std::vector<PairRecord> pairs) {
    RowRecord r;
    r.id = id;
    r.disposition = d;
    r.pairs = std::move(pairs);
    rows.push_back(r);
  };
  row("r1", Disposition::passed, {pair("k.floor", 10, 12), pair("k.old", 15, 12.5)});
  row("r2", Disposition::passed, {pair("k.floor", 20, 22), pair("k.old", 40, 21)});
  row("r3", Disposition::incorrect, {});
  return rows;
}

TEST(ReportWide, ColumnsRatiosAndGeomean) {
  const std::string t = report_wide(wide_rows(), "k.floor");
  EXPECT_NE(t.find("| row | k.new | k.floor | k.old |"), std::string::npos) << t;
  // The candidate's median is the one from its first pairing (12, not 12.5).
  EXPECT_NE(t.find("| r1 | 12 | 10 | 15 | 1.200 | 1.000 | 1.500 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| r2 | 22 | 20 | 40 | 1.100 | 1.000 | 2.000 |"), std::string::npos) << t;
  EXPECT_NE(t.find("| r3 (incorrect) | - | - | - | - | - | - |"), std::string::npos) << t;
  // geomeans over r1, r2: sqrt(1.2 * 1.1) = 1.149, sqrt(1.5 * 2) = 1.732
  EXPECT_NE(t.find("| geomean over 2 rows | | | | 1.149 | 1.000 | 1.732 |"), std::string::npos) << t;
}

TEST(ReportWide, DefaultAnchorIsTheFirstBaselineAndUnknownAnchorsAreRefused) {
  EXPECT_EQ(report_wide(wide_rows()), report_wide(wide_rows(), "k.floor"));
  EXPECT_NE(report_wide(wide_rows(), "k.old").find("| r2 | 22 | 20 | 40 | 0.550 | 0.500 | 1.000 |"), std::string::npos);
  EXPECT_THROW(report_wide(wide_rows(), "k.missing"), InputError);
}

}  // namespace
}  // namespace kgate
