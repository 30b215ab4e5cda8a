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

ChangeInterval change_interval(double old_ratio, const RatioInterval& old_ci, double new_ratio,
                               const RatioInterval& new_ci) {
  auto below = [](double r, const RatioInterval& ci) { return std::max(0.0, std::log(r) - std::log(ci.lo)); };
  auto above = [](double r, const RatioInterval& ci) { return std::max(0.0, std::log(ci.hi) - std::log(r)); };
  const double change = new_ratio / old_ratio;
  const double lower = std::hypot(below(new_ratio, new_ci), above(old_ratio, old_ci));
  const double upper = std::hypot(above(new_ratio, new_ci), below(old_ratio, old_ci));
  return {change * std::exp(-lower), change * std::exp(upper)};
}

ChangeClass classify_change(double change, const ChangeInterval& ci, double t) {
  if (ci.lo > 1 && change >= 1 + t) return ChangeClass::faster;
  if (ci.hi < 1 && change <= 1 - t) return ChangeClass::slower;
  const bool within = ci.lo >= 1 / (1 + t) && ci.hi <= 1 + t;
  const bool resolved = ci.lo > 1 || ci.hi < 1;
  if (within || (resolved && std::fabs(change - 1) < t)) return ChangeClass::same;
  return ChangeClass::unresolved;
}

bool CompareResult::any_slower() const {
  auto it = classes.find(to_string(ChangeClass::slower));
  return it != classes.end() && it->second > 0;
}

namespace {

PairChange pair_change(const RowRecord& orow, const PairRecord& op, const RowRecord& nrow, const PairRecord& p,
                       const std::string& baseline, double threshold) {
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
    pc.change_ci = change_interval(*op.ratio, *op.ratio_ci, *p.ratio, *p.ratio_ci);
    pc.cls = classify_change(*pc.change, *pc.change_ci, threshold);
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
                               const ReceiptView& new_v, const std::vector<RowRecord>& new_rows, double threshold) {
  CompareResult c;
  c.old_side = side_of(old_v);
  c.new_side = side_of(new_v);
  c.threshold = threshold;
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
      c.pairs.push_back(pair_change(*it->second.first, *it->second.second, row, p, key.second, threshold));
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
