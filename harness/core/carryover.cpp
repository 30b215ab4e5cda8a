#include "harness/core/carryover.hpp"

#include <algorithm>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/records.hpp"
#include "harness/core/report_text.hpp"
#include "harness/core/report_view.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

namespace rt = report_text;

UnitOrder unit_order(const ScheduleConfig& schedule, int group, size_t row_index, const std::string& candidate,
                     const std::vector<std::string>& baselines, bool warmed_up) {
  UnitOrder o;
  if (baselines.empty()) return o;
  const std::string letters = block_letters(schedule, group, row_index);
  // The warm-up runs the candidate, then the baselines in order; without one, what came before is unknown.
  std::string before = warmed_up ? baselines.back() : "";
  for (const auto& b : baselines)
    for (char L : letters) {
      o.arms.push_back(L == 'A' ? b : candidate);
      o.after.push_back(before);
      before = o.arms.back();
    }
  return o;
}

std::optional<double> CarryoverSide::carryover() const {
  if (!after_other_us || !repeat_us || !(*after_other_us > 0) || !(*repeat_us > 0)) return std::nullopt;
  return *after_other_us / *repeat_us;
}

namespace {

std::optional<double> median_of(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  return median(std::move(v));
}

std::optional<double> ratio_of(const std::optional<double>& b, const std::optional<double>& c) {
  if (!b || !c || !(*b > 0) || !(*c > 0)) return std::nullopt;
  return *b / *c;
}

std::optional<std::pair<double, double>> range_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return std::make_pair(*lo, *hi);
}

CarryoverSide split_of(const std::vector<double>& after, const std::vector<double>& repeat) {
  return {static_cast<int64_t>(after.size()),
          static_cast<int64_t>(repeat.size()),
          median_of(after),
          median_of(repeat),
          range_of(after),
          range_of(repeat)};
}

// Per arm of several activities whose series has one entry per timed call (series_len: groups x its calls in a unit),
// each activity's time over the given calls, split by what they follow (an activity a call did not run: 0).
std::vector<CarryoverActivity> split_activities(
    const RowSamples& rs, const std::map<std::string, std::vector<std::pair<size_t, bool>>>& calls,
    const std::map<std::string, size_t>& series_len) {
  std::vector<CarryoverActivity> out;
  for (const auto& [arm, mine] : calls) {
    auto it = rs.side.find(arm);
    if (it == rs.side.end()) continue;
    const auto& series = it->second.activity_us;
    std::set<std::string> names;
    for (const auto& call : series)
      for (const auto& [name, us] : call) names.insert(name);
    if (names.size() < 2 || series.size() != series_len.at(arm)) continue;
    for (const auto& name : names) {
      std::vector<double> after, repeat;
      for (const auto& [idx, other] : mine) {
        auto f = series[idx].find(name);
        (other ? after : repeat).push_back(f == series[idx].end() ? 0.0 : f->second);
      }
      out.push_back({arm, name, split_of(after, repeat)});
    }
  }
  return out;
}

}  // namespace

CarryoverResult carryover(const json& receipt, const json& samples, const std::string& source) {
  const ReportView v = report_view(receipt, source);
  CarryoverResult c;
  c.source = source;
  c.body_sha256 = v.body_sha256;
  c.git_commit = v.git_commit;
  c.table = v.table;
  c.device = v.device;
  c.candidate = v.candidate;
  c.baselines = v.baselines;
  c.schedule = {static_cast<int>(v.groups), static_cast<int>(v.blocks), static_cast<int>(v.m),
                static_cast<uint64_t>(v.seed)};
  try {
    c.schedule.validate();
  } catch (const InputError& e) {
    throw AuditError(std::string("field 'protocol': ") + e.what());
  }
  // The executor warms every arm up unless both bounds are 0 (a loop of at least that many calls and us).
  c.warmed_up = v.protocol.value("warmup_min_calls", int64_t{1}) > 0 || v.protocol.value("warmup_min_us", 1.0) > 0;
  if (v.protocol.contains("cold_l2") && v.protocol["cold_l2"].is_boolean())
    c.cold_l2 = v.protocol["cold_l2"].get<bool>();
  if (c.baselines.empty()) throw AuditError("field 'arms': no baseline arm, so no pairs to split");
  if (!samples.is_object() || !samples.contains("rows") || !samples["rows"].is_object())
    throw AuditError("the sidecar has no 'rows' object");
  const json& srows = samples["rows"];
  for (size_t ri = 0; ri < v.rows.size(); ++ri) {
    const RowRecord& row = v.rows[ri].record;
    if (row.disposition != Disposition::passed) continue;
    if (!srows.contains(row.id)) throw AuditError("row '" + row.id + "': passed but has no samples in the sidecar");
    const RowSamples rs = row_samples_from_json(srows[row.id], row.id);
    // The row's units, one a group; every unit times each arm equally often (the letters' length is fixed).
    // A baseline that refused the row (an accepted refusal) is neither warmed nor timed in it.
    std::vector<std::string> ran;
    for (const auto& b : c.baselines)
      if (!row.refused.count(b)) ran.push_back(b);
    std::vector<UnitOrder> orders;
    for (int g = 0; g < c.schedule.groups; ++g)
      orders.push_back(unit_order(c.schedule, g, ri, c.candidate, ran, c.warmed_up));
    std::map<std::string, size_t> per_unit, series_len;  // per arm: its calls in a unit; in its series (every group)
    for (const auto& a : orders.front().arms) ++per_unit[a];
    for (const auto& [a, n] : per_unit) series_len[a] = static_cast<size_t>(c.schedule.groups) * n;
    c.world_size = std::max<int64_t>(c.world_size, rs.world_size);
    if (rs.baseline.size() != row.pairs.size() || rs.candidate.size() != row.pairs.size() ||
        row.pairs.size() != c.baselines.size())
      throw AuditError("row '" + row.id + "': sample pairs do not match the row's pairs and the run's baselines");
    for (size_t k = 0; k < row.pairs.size(); ++k) {
      const PairRecord& p = row.pairs[k];
      if (p.baseline != c.baselines[k])
        throw AuditError("row '" + row.id + "': pair " + std::to_string(k) + " is against " + p.baseline +
                         ", but the run paired " + c.baselines[k] + " there");
      if (row.refused.count(p.baseline)) continue;  // not measured
      const size_t slot = static_cast<size_t>(std::find(ran.begin(), ran.end(), p.baseline) - ran.begin());
      if (rs.baseline[k].size() != static_cast<size_t>(c.schedule.groups) ||
          rs.candidate[k].size() != static_cast<size_t>(c.schedule.groups))
        throw AuditError("row '" + row.id + "': pair " + std::to_string(k) + ": not one sample list per group");
      std::vector<double> b_after, b_rep, c_after, c_rep;
      // Per arm of the pair: (index into its activity series, follows another arm) of each of this pair's calls.
      std::map<std::string, std::vector<std::pair<size_t, bool>>> calls;
      for (int g = 0; g < c.schedule.groups; ++g) {
        const UnitOrder& o = orders[static_cast<size_t>(g)];
        // This pair's slice of the unit: pairs run in baseline order, each its own letters.
        const size_t per_pair = o.arms.size() / ran.size(), first = slot * per_pair;
        std::map<std::string, size_t> in_unit;  // an arm's calls before i in the unit
        size_t nb = 0, nc = 0;
        for (size_t i = 0; i < first + per_pair; ++i) {
          const size_t call = in_unit[o.arms[i]]++;
          if (i < first) continue;
          const bool is_base = o.arms[i] == p.baseline;
          const auto& list = is_base ? rs.baseline[k][g] : rs.candidate[k][g];
          size_t& n = is_base ? nb : nc;
          if (n >= list.size()) throw AuditError("row '" + row.id + "': fewer samples than the schedule times");
          const double us = list[n++];
          if (o.after[i].empty()) continue;  // no warm-up: what came before this unit's first sample is unknown
          const bool other = o.after[i] != o.arms[i];
          (is_base ? (other ? b_after : b_rep) : (other ? c_after : c_rep)).push_back(us);
          calls[o.arms[i]].push_back({static_cast<size_t>(g) * per_unit[o.arms[i]] + call, other});
        }
        if (nb != rs.baseline[k][g].size() || nc != rs.candidate[k][g].size())
          throw AuditError("row '" + row.id + "': more samples than the schedule times");
      }
      CarryoverPair cp;
      cp.row = row.id;
      cp.baseline = p.baseline;
      cp.tags = row.tags;
      cp.base = split_of(b_after, b_rep);
      cp.cand = split_of(c_after, c_rep);
      cp.activities = split_activities(rs, calls, series_len);
      cp.ratio = p.ratio;
      cp.ratio_after_other = ratio_of(cp.base.after_other_us, cp.cand.after_other_us);
      cp.ratio_repeat = ratio_of(cp.base.repeat_us, cp.cand.repeat_us);
      c.pairs.push_back(std::move(cp));
    }
  }
  // Per baseline, over its pairs where every figure exists (all > 0).
  for (const auto& b : c.baselines) {
    std::vector<const CarryoverPair*> full;
    for (const auto& p : c.pairs)
      if (p.baseline == b && p.ratio && p.ratio_after_other && p.ratio_repeat && p.base.carryover() &&
          p.cand.carryover())
        full.push_back(&p);
    if (full.empty()) continue;
    auto geo = [&](auto figure) {
      std::vector<double> x;
      for (const CarryoverPair* p : full) x.push_back(*figure(*p));
      return geomean(x);
    };
    CarryoverGeomeans g;
    g.rows = static_cast<int64_t>(full.size());
    g.ratio = geo([](const CarryoverPair& p) { return p.ratio; });
    g.ratio_after_other = geo([](const CarryoverPair& p) { return p.ratio_after_other; });
    g.ratio_repeat = geo([](const CarryoverPair& p) { return p.ratio_repeat; });
    g.base_carryover = geo([](const CarryoverPair& p) { return p.base.carryover(); });
    g.cand_carryover = geo([](const CarryoverPair& p) { return p.cand.carryover(); });
    c.by_baseline[b] = g;
  }
  return c;
}

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
