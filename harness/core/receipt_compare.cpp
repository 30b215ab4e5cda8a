#include "harness/core/receipt_compare.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "harness/core/errors.hpp"
#include "harness/core/stats.hpp"
#include "harness/core/verdicts.hpp"
#include "harness/core/text.hpp"
#include "harness/export/loader.hpp"

namespace kgate {
namespace {

CompareSide side_of(const ReceiptView& v) {
  return {v.source, v.body_sha256, v.git_commit, v.table, v.cases_sha256, v.device, v.candidate, v.baselines};
}

std::optional<double> median_of(const std::optional<SampleStats>& s) {
  return s ? std::optional<double>(s->median_us) : std::nullopt;
}

}  // namespace

std::string to_string(ChangeClass c) {
  switch (c) {
    case ChangeClass::faster:
      return "FASTER";
    case ChangeClass::slower:
      return "SLOWER";
    case ChangeClass::same:
      return "SAME";
    case ChangeClass::unresolved:
      return "UNRESOLVED";
    case ChangeClass::unmeasured:
      return "UNMEASURED";
  }
  return "?";
}

void check_compare_rule(const CompareRule& r) {
  if (!(r.threshold >= 0 && r.threshold < 1)) throw InputError("--threshold: must be in [0, 1)");
  if (!(r.margin > 0 && r.margin < 1)) throw InputError("--margin: must be in (0, 1)");
  if (!(r.run_noise >= 0 && r.run_noise < 1)) throw InputError("--run-noise: must be in [0, 1)");
}

double normal_quantile_two_sided(double level) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("normal_quantile_two_sided: level must be in (0, 1)");
  // P(|Z| > z) = erfc(z / sqrt 2) falls from 1 to 0: bisect for 1 - level.
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (std::erfc(mid / std::sqrt(2.0)) > 1 - level ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

ChangeInterval change_interval(const LeveledRatio& o, const LeveledRatio& n, double run_noise, double level) {
  // Each recorded half-width as a standard deviation (its receipt's level), then the sides'.
  auto below = [](const LeveledRatio& r) {
    return std::max(0.0, std::log(r.ratio) - std::log(r.ci.lo)) / normal_quantile_two_sided(r.level);
  };
  auto above = [](const LeveledRatio& r) {
    return std::max(0.0, std::log(r.ci.hi) - std::log(r.ratio)) / normal_quantile_two_sided(r.level);
  };
  const double z = normal_quantile_two_sided(level), change = n.ratio / o.ratio;
  const double lower = z * std::hypot(std::hypot(below(n), above(o)), run_noise);
  const double upper = z * std::hypot(std::hypot(above(n), below(o)), run_noise);
  return {change * std::exp(-lower), change * std::exp(upper)};
}

ChangeClass classify_change(double change, const ChangeInterval& ci, const ChangeInterval& equivalence_ci,
                            const CompareRule& rule) {
  if (ci.lo > 1 && change >= 1 + rule.threshold) return ChangeClass::faster;
  if (ci.hi < 1 && change <= 1 - rule.threshold) return ChangeClass::slower;
  if (equivalence_ci.lo >= 1 / (1 + rule.margin) && equivalence_ci.hi <= 1 + rule.margin) return ChangeClass::same;
  return ChangeClass::unresolved;
}

bool CompareResult::any(ChangeClass cls) const {
  auto it = classes.find(to_string(cls));
  return it != classes.end() && it->second > 0;
}

namespace {

PairChange pair_change(const RowRecord& orow, const PairRecord& op, const RowRecord& nrow, const PairRecord& p,
                       const std::string& baseline, const CompareRule& rule, double old_level, double new_level) {
  PairChange pc;
  pc.id = nrow.id;
  pc.baseline = baseline;
  pc.tags = nrow.tags;
  pc.old_disposition = orow.disposition;
  pc.new_disposition = nrow.disposition;
  pc.old_baseline_us = median_of(op.baseline_stats);
  pc.new_baseline_us = median_of(p.baseline_stats);
  pc.old_candidate_us = median_of(op.candidate_stats);
  pc.new_candidate_us = median_of(p.candidate_stats);
  pc.old_ratio = op.ratio;
  pc.new_ratio = p.ratio;
  pc.old_ci = op.ratio_ci;
  pc.new_ci = p.ratio_ci;
  if (op.ratio && p.ratio && op.ratio_ci && p.ratio_ci && *op.ratio > 0 && *p.ratio > 0 && op.ratio_ci->lo > 0 &&
      p.ratio_ci->lo > 0) {
    pc.change = *p.ratio / *op.ratio;
    const LeveledRatio o{*op.ratio, *op.ratio_ci, old_level}, n{*p.ratio, *p.ratio_ci, new_level};
    pc.change_ci = change_interval(o, n, rule.run_noise, new_level);
    pc.equivalence_ci = change_interval(o, n, rule.run_noise, CompareRule::kEquivalenceLevel);
    pc.cls = classify_change(*pc.change, *pc.change_ci, *pc.equivalence_ci, rule);
  }
  return pc;
}

// Every failed gate of a receipt's rows under its recorded policy.
std::vector<RowFailure> failures_of(const ReceiptView& v, const std::vector<RowRecord>& rows) {
  std::vector<RowFailure> out;
  for (const auto& row : rows)
    for (GateResult& r : failed_gates(row, v.policy, v.interval.level))
      out.push_back({row.id, row.disposition, std::move(r)});
  return out;
}

// The geomean change per baseline, overall and by tag, over the pairs with a change.
void geomeans(CompareResult& c) {
  std::map<std::string, std::vector<double>> changes;
  std::map<std::string, std::map<std::string, std::vector<double>>> tag_changes;
  for (const auto& pc : c.pairs) {
    if (!pc.change) continue;
    changes[pc.baseline].push_back(*pc.change);
    for (const auto& [k, val] : pc.tags) tag_changes[pc.baseline][k + "=" + val].push_back(*pc.change);
  }
  for (const auto& [b, v] : changes) c.by_baseline[b] = {static_cast<int64_t>(v.size()), geomean(v)};
  for (const auto& [b, tags] : tag_changes)
    for (const auto& [tag, v] : tags) c.by_tag[b][tag] = {static_cast<int64_t>(v.size()), geomean(v)};
}

}  // namespace

CompareResult compare_receipts(const ReceiptView& old_v, const std::vector<RowRecord>& old_rows,
                               const ReceiptView& new_v, const std::vector<RowRecord>& new_rows,
                               const CompareRule& rule) {
  CompareResult c;
  c.old_side = side_of(old_v);
  c.new_side = side_of(new_v);
  c.rule = rule;
  c.level = new_v.interval.level;
  std::map<std::pair<std::string, std::string>, std::pair<const RowRecord*, const PairRecord*>> old_pairs;
  std::vector<std::pair<std::string, std::string>> old_order;
  for (const auto& row : old_rows)
    for (const auto& p : row.pairs) {
      // An export baseline matches by its portable name: a receipt written before export arms
      // went by file name recorded the path it was loaded from.
      old_pairs[{row.id, portable_export_name(p.baseline)}] = {&row, &p};
      old_order.emplace_back(row.id, portable_export_name(p.baseline));
    }
  std::set<std::pair<std::string, std::string>> matched;
  for (const auto& row : new_rows)
    for (const auto& p : row.pairs) {
      const auto key = std::make_pair(row.id, portable_export_name(p.baseline));
      auto it = old_pairs.find(key);
      if (it == old_pairs.end()) {
        c.only_new.push_back(key);
        continue;
      }
      matched.insert(key);
      c.pairs.push_back(pair_change(*it->second.first, *it->second.second, row, p, key.second, c.rule,
                                    old_v.interval.level, c.level));
      ++c.classes[to_string(c.pairs.back().cls)];
    }
  for (const auto& key : old_order)
    if (!matched.count(key)) c.only_old.push_back(key);
  if (c.pairs.empty())
    throw InputError("no rows match: no (row id, baseline) pair is in both " + old_v.source + " (" +
                     std::to_string(old_order.size()) + " pairs, candidate " + old_v.candidate + ") and " +
                     new_v.source + " (" + std::to_string(c.only_new.size()) + " pairs, candidate " + new_v.candidate +
                     ")");
  geomeans(c);
  c.old_failures = failures_of(old_v, old_rows);
  c.new_failures = failures_of(new_v, new_rows);
  return c;
}

}  // namespace kgate
