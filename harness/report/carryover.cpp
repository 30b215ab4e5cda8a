#include "harness/report/carryover.hpp"

#include "harness/report/report_text.hpp"

namespace kgate {

namespace rt = report_text;

namespace {

std::string us_n(const std::optional<double>& us, int64_t n) {
  return rt::opt(us, rt::sig4) + " (" + std::to_string(n) + ")";
}
std::string carry_text(const std::optional<double>& x) { return rt::opt(x, rt::change_pct); }

}  // namespace

std::string carryover_markdown(const CarryoverResult& c) {
  std::string o = "## kgate carryover: `" + rt::md(c.candidate) + "` on " + rt::md(c.device) + ", table `" +
                  rt::md(c.table) + "`\n\n";
  o += "Derived from receipt `" + rt::md(c.source) + "` (body sha256 `" + c.body_sha256 + "`, commit `" +
       rt::md(c.git_commit) + "`) and its audited samples; nothing here is sealed or gated.\n\n";
  o += "Each arm's samples split by the arm whose call came just before them in the run (groups " +
       std::to_string(c.schedule.groups) + ", blocks " + std::to_string(c.schedule.blocks) + ", m " +
       std::to_string(c.schedule.m) + ", seed " + std::to_string(c.schedule.seed) +
       "): **after other** = another arm's (a timed call, or for a unit's first sample the last warm-up call); "
       "**repeat** = "
       "the arm's own. ";
  if (c.cold_l2 == true)
    o += "The run flushed the L2 before every sample (its memset kernel runs between any two samples), so the split "
         "shows what survives that: the SMs' instruction and constant caches, the driver's state. ";
  else if (c.cold_l2 == false)
    o +=
        "The run did not flush the L2 between samples (a warm or CPU run): the split includes what the arm before left "
        "in the caches. ";
  else
    o += "The receipt does not say whether the L2 was flushed between samples. ";
  if (c.world_size > 1)
    o += "Its ranks agree (a collective on the timing stream) before every sample, so a repeat does not follow its own "
         "call directly. ";
  if (!c.warmed_up)
    o +=
        "It had no warm-up, so what ran before each unit's first sample is unknown: that sample is in neither subset. ";
  o += "Carryover = after-other median / repeat median - 1 (> 0: the arm runs longer after another arm). Ratios are "
       "baseline median / candidate median (> 1: the candidate is faster); **ratio** is the receipt's (all samples). "
       "Medians of subsets, no intervals: a look, not a verdict.\n\n";
  o += "| vs baseline | rows | geomean ratio | after other | repeats | candidate carryover | baseline carryover |\n";
  o += "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& b : c.baselines) {
    auto it = c.by_baseline.find(b);
    if (it == c.by_baseline.end()) {
      o += "| `" + rt::md(b) + "` | 0 | - | - | - | - | - |\n";
      continue;
    }
    const CarryoverGeomeans& g = it->second;
    o += "| `" + rt::md(b) + "` | " + std::to_string(g.rows) + " | " + rt::ratio3(g.ratio) + " | **" +
         rt::ratio3(g.ratio_after_other) + "** | " + rt::ratio3(g.ratio_repeat) + " | " +
         rt::change_pct(g.cand_carryover) + " | " + rt::change_pct(g.base_carryover) + " |\n";
  }
  o += "\n### Rows\n\nus: medians (sample count).\n\n";
  o += "| row | vs | candidate after other | candidate repeat | carryover | baseline after other | baseline repeat | "
       "carryover | ratio | after other | repeats |\n";
  o += "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& p : c.pairs) {
    o += "| " + rt::md(p.row) + " | `" + rt::md(p.baseline) + "` | " +
         us_n(p.cand.after_other_us, p.cand.n_after_other) + " | " + us_n(p.cand.repeat_us, p.cand.n_repeat) + " | " +
         carry_text(p.cand.carryover()) + " | " + us_n(p.base.after_other_us, p.base.n_after_other) + " | " +
         us_n(p.base.repeat_us, p.base.n_repeat) + " | " + carry_text(p.base.carryover()) + " | " +
         rt::opt(p.ratio, rt::ratio3) + " | **" + rt::opt(p.ratio_after_other, rt::ratio3) + "** | " +
         rt::opt(p.ratio_repeat, rt::ratio3) + " |\n";
  }
  if (c.pairs.empty()) o += "\nNo row was measured: nothing to split.\n";
  bool any = false;
  for (const auto& p : c.pairs) any |= !p.activities.empty();
  if (any) {
    o += "\n### Activities\n\nFor arms of several activities (CUPTI: each kernel's own duration per call, 0 in a call "
         "that "
         "did not run it): the same split over the pair's calls, so an arm's carryover can be placed in one of its "
         "kernels.\n\n| row | vs | arm | activity | after other | repeat | carryover "
         "|\n|---|---|---|---|---:|---:|---:|\n";
    for (const auto& p : c.pairs)
      for (const auto& a : p.activities)
        o += "| " + rt::md(p.row) + " | `" + rt::md(p.baseline) + "` | `" + rt::md(a.arm) + "` | `" +
             rt::md(rt::activity_label(a.activity)) + "` | " + us_n(a.split.after_other_us, a.split.n_after_other) +
             " | " + us_n(a.split.repeat_us, a.split.n_repeat) + " | " + carry_text(a.split.carryover()) + " |\n";
  }
  return o;
}

json carryover_json(const CarryoverResult& c) {
  auto opt = [](const auto& x) { return x ? json(*x) : json(nullptr); };  // optional<double | bool>
  auto side = [&](const CarryoverSide& s) {
    auto range = [](const std::optional<std::pair<double, double>>& r) {
      return r ? json::array({r->first, r->second}) : json(nullptr);
    };
    return json{{"n_after_other", s.n_after_other},
                {"n_repeat", s.n_repeat},
                {"after_other_us", opt(s.after_other_us)},
                {"repeat_us", opt(s.repeat_us)},
                {"after_other_min_max_us", range(s.after_other_range)},
                {"repeat_min_max_us", range(s.repeat_range)},
                {"carryover_ratio", opt(s.carryover())}};
  };
  json j = {{"schema", "kgate.carryover/1"},
            {"receipt", c.source},
            {"body_sha256", c.body_sha256},
            {"git_commit", c.git_commit},
            {"table", c.table},
            {"device", c.device},
            {"candidate", c.candidate},
            {"baselines", c.baselines},
            {"schedule",
             {{"groups", c.schedule.groups},
              {"blocks", c.schedule.blocks},
              {"m", c.schedule.m},
              {"seed", c.schedule.seed},
              {"warmed_up", c.warmed_up}}},
            {"cold_l2", opt(c.cold_l2)},
            {"world_size", c.world_size}};
  j["pairs"] = json::array();
  for (const auto& p : c.pairs) {
    json acts = json::array();
    for (const auto& a : p.activities)
      acts.push_back({{"arm", a.arm}, {"activity", a.activity}, {"split", side(a.split)}});
    j["pairs"].push_back({{"row", p.row},
                          {"baseline", p.baseline},
                          {"tags", p.tags},
                          {"candidate", side(p.cand)},
                          {"baseline_arm", side(p.base)},
                          {"ratio", opt(p.ratio)},
                          {"ratio_after_other", opt(p.ratio_after_other)},
                          {"ratio_repeat", opt(p.ratio_repeat)},
                          {"activities", acts}});
  }
  j["by_baseline"] = json::object();
  for (const auto& [b, g] : c.by_baseline)
    j["by_baseline"][b] = {{"rows", g.rows},
                           {"geomean_ratio", g.ratio},
                           {"geomean_ratio_after_other", g.ratio_after_other},
                           {"geomean_ratio_repeat", g.ratio_repeat},
                           {"geomean_candidate_carryover_ratio", g.cand_carryover},
                           {"geomean_baseline_carryover_ratio", g.base_carryover}};
  return j;
}

}  // namespace kgate
