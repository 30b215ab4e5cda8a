#include "harness/core/carryover.hpp"

#include <algorithm>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/records.hpp"
#include "harness/core/receipt_view.hpp"
#include "harness/core/stats.hpp"

namespace kgate {

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

namespace {

// The receipt's facts the split needs: its identity, the schedule, warm-up and L2 flushing.
CarryoverResult carryover_header(const ReceiptView& v) {
  CarryoverResult c;
  c.source = v.source;
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
  return c;
}

// One row's units: the order each group's unit times its arms in, and per arm its calls in a unit
// and in its series (every group).
struct RowUnits {
  std::vector<std::string> ran;  // the baselines that ran (not refused), in pairing order
  std::vector<UnitOrder> orders;
  std::map<std::string, size_t> per_unit, series_len;
};

RowUnits row_units(const CarryoverResult& c, const RowRecord& row, size_t ri) {
  RowUnits u;
  // Every unit times each arm equally often (the letters' length is fixed). A baseline that
  // refused the row (an accepted refusal) is neither warmed nor timed in it.
  for (const auto& b : c.baselines)
    if (!row.refused.count(b)) u.ran.push_back(b);
  for (int g = 0; g < c.schedule.groups; ++g)
    u.orders.push_back(unit_order(c.schedule, g, ri, c.candidate, u.ran, c.warmed_up));
  for (const auto& a : u.orders.front().arms) ++u.per_unit[a];
  for (const auto& [a, n] : u.per_unit) u.series_len[a] = static_cast<size_t>(c.schedule.groups) * n;
  return u;
}

// Pair k of the row, its samples split by what each follows.
CarryoverPair split_pair(const CarryoverResult& c, const RowRecord& row, const RowSamples& rs, const RowUnits& u,
                         size_t k) {
  const PairRecord& p = row.pairs[k];
  const size_t slot = static_cast<size_t>(std::find(u.ran.begin(), u.ran.end(), p.baseline) - u.ran.begin());
  if (rs.baseline[k].size() != static_cast<size_t>(c.schedule.groups) ||
      rs.candidate[k].size() != static_cast<size_t>(c.schedule.groups))
    throw AuditError("row '" + row.id + "': pair " + std::to_string(k) + ": not one sample list per group");
  std::vector<double> b_after, b_rep, c_after, c_rep;
  // Per arm of the pair: (index into its activity series, follows another arm) of each of this pair's calls.
  std::map<std::string, std::vector<std::pair<size_t, bool>>> calls;
  for (int g = 0; g < c.schedule.groups; ++g) {
    const UnitOrder& o = u.orders[static_cast<size_t>(g)];
    // This pair's slice of the unit: pairs run in baseline order, each its own letters.
    const size_t per_pair = o.arms.size() / u.ran.size(), first = slot * per_pair;
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
      calls[o.arms[i]].push_back({static_cast<size_t>(g) * u.per_unit.at(o.arms[i]) + call, other});
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
  cp.activities = split_activities(rs, calls, u.series_len);
  cp.ratio = p.ratio;
  cp.ratio_after_other = ratio_of(cp.base.after_other_us, cp.cand.after_other_us);
  cp.ratio_repeat = ratio_of(cp.base.repeat_us, cp.cand.repeat_us);
  return cp;
}

void split_row(CarryoverResult& c, const RowRecord& row, size_t ri, const json& srows) {
  if (!srows.contains(row.id)) throw AuditError("row '" + row.id + "': passed but has no samples in the sidecar");
  const RowSamples rs = row_samples_from_json(srows[row.id], row.id);
  const RowUnits u = row_units(c, row, ri);
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
    c.pairs.push_back(split_pair(c, row, rs, u, k));
  }
}

// Per baseline, over its pairs where every figure exists (all > 0).
void carryover_geomeans(CarryoverResult& c) {
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
}

}  // namespace

CarryoverResult carryover(const json& receipt, const json& samples, const std::string& source) {
  CarryoverResult c = carryover_header(receipt_view(receipt, source));
  if (!samples.is_object() || !samples.contains("rows") || !samples["rows"].is_object())
    throw AuditError("the sidecar has no 'rows' object");
  const std::vector<RowRecord> rows = receipt_rows(receipt);
  for (size_t ri = 0; ri < rows.size(); ++ri)
    if (rows[ri].disposition == Disposition::passed) split_row(c, rows[ri], ri, samples["rows"]);
  carryover_geomeans(c);
  return c;
}

}  // namespace kgate
